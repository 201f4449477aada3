import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Media = { schema?: object };
type Responses = Record<string, { content?: Record<string, Media> }>;
type Document = { paths: Record<string, Record<string, { responses: Responses }>> };

/**
 * Checks every answer of a documented route against the app's own OpenAPI document: the
 * operation exists, the status is listed exactly (no 4XX ranges), and the body validates
 * against that response's schema — for an error, its error_code is one the document lists
 * for that status (a response without content has no body).
 * Call before the app is ready; what does not conform is collected in the returned list.
 */
export function checkAnswersAgainstDocument(app: FastifyInstance): string[] {
  const violations: string[] = [];
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validators = new Map<object, ReturnType<typeof ajv.compile>>();
  app.addHook('onSend', async (request, reply, payload) => {
    const { url, schema } = request.routeOptions;
    if (!url || (schema as { hide?: boolean } | undefined)?.hide || request.method === 'HEAD') return payload;
    const where = `${request.method} ${url} → ${reply.statusCode}`;
    const document = app.swagger() as unknown as Document;
    const operation = document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[request.method.toLowerCase()];
    const status = String(reply.statusCode);
    const response = operation?.responses[status];
    if (!response) {
      violations.push(`${where}: not in the document`);
      return payload;
    }
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
    const expected = response.content?.['application/json']?.schema;
    if (!expected) {
      const type = String(reply.getHeader('content-type') ?? '').split(';')[0]!;
      if (text !== '' && !response.content?.[type])
        violations.push(`${where}: a body (${type}) where the document has none`);
      return payload;
    }
    let validate = validators.get(expected);
    if (!validate) validators.set(expected, (validate = ajv.compile(expected)));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      violations.push(`${where}: not JSON`);
      return payload;
    }
    if (!validate(body)) violations.push(`${where}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
    return payload;
  });
  return violations;
}
