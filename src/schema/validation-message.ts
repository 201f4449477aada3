import { closest, distance } from 'fastest-levenshtein';

/** What Ajv (with `verbose`) reports of one failed keyword. */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: { properties?: Record<string, unknown>; description?: string };
}

/** Fields of the product's objects that the server sets: a client that sends one back is told so. */
const READ_ONLY = new Set([
  'uid',
  'status',
  'password_issue_date',
  'last_login',
  'username',
  'action_uid',
  'account_id',
]);

const TYPE_NAMES: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a JSON array',
  null: 'null',
};

/**
 * A validation failure in words a person reads: the field as the client spells it, and
 * what it may be (`role must be one of admin, …`; `unknown field "password_min_lenght"`).
 * No schema keyword reaches the message. `part` is Fastify's: body, params, querystring.
 */
export function validationMessage(errors: readonly SchemaError[], part: string): string {
  const byField = new Map<string, SchemaError[]>();
  for (const e of errors) byField.set(e.instancePath, [...(byField.get(e.instancePath) ?? []), e]);
  return [...byField].map(([path, errs]) => describe(fieldName(path, part), errs, part)).join('; ');
}

function fieldName(instancePath: string, part: string): string {
  if (instancePath === '') return part === 'body' ? 'the body' : `the ${part}`;
  return instancePath.slice(1).replaceAll('/', '.');
}

function describe(field: string, errs: SchemaError[], part: string): string {
  // Alternatives (anyOf: "a string or null", constants) are told together.
  // A type list (["string", "null"]) is one error naming them all.
  const types = errs
    .filter((e) => e.keyword === 'type')
    .flatMap((e) => String(e.params.type).split(','))
    .map((t) => TYPE_NAMES[t] ?? t);
  const consts = errs.filter((e) => e.keyword === 'const').map((e) => String(e.params.allowedValue));
  if (consts.length > 0) return `${field} must be one of ${consts.join(', ')}`;
  if (types.length > 0) return `${field} must be ${[...new Set(types)].join(' or ')}`;
  const e = errs.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'oneOf') ?? errs[0]!;
  const p = e.params;
  const subject = (name: unknown) => (field === 'the body' ? String(name) : `${field}.${String(name)}`);
  switch (e.keyword) {
    case 'required':
      return `${subject(p.missingProperty)} is required`;
    case 'additionalProperties': {
      const known = Object.keys(e.parentSchema?.properties ?? {});
      if (part === 'querystring')
        return `unknown query parameter "${String(p.additionalProperty)}" (${known.length ? `known: ${known.join(', ')}` : 'this request takes none'})`;
      if (READ_ONLY.has(String(p.additionalProperty))) return `${subject(p.additionalProperty)} is read-only`;
      return `unknown field "${subject(p.additionalProperty)}"${knownFields(String(p.additionalProperty), known)}`;
    }
    case 'enum': {
      // Names as they are (admin, none); values of several types as JSON (1, "1").
      const values = p.allowedValues as unknown[];
      const names = values.every((v) => typeof v === 'string');
      const shown = values.map((v) => (v === '' ? '(empty)' : names ? String(v) : JSON.stringify(v)));
      return `${field} must be one of ${shown.join(', ')}`;
    }
    case 'minimum':
      return `${field} must be at least ${String(p.limit)}`;
    case 'maximum':
      return `${field} must be at most ${String(p.limit)}`;
    case 'minLength':
      return p.limit === 1 ? `${field} must not be empty` : `${field} must have at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${field} must have at most ${String(p.limit)} characters`;
    case 'minItems':
      return p.limit === 1 ? `${field} must not be empty` : `${field} must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `${field} must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return `${field} holds the same value twice`;
    case 'pattern':
      return `${field} must be ${e.parentSchema?.description ?? 'in the documented form'}`;
    default:
      return `${field} is not valid`;
  }
}

/** The fields a request takes, when a few; else the nearest to a misspelt one (the product's cluster object has a hundred). */
function knownFields(name: string, known: string[]): string {
  if (known.length === 0) return '';
  if (known.length <= 16) return ` (known: ${known.join(', ')})`;
  const near = closest(name, known);
  return distance(name, near) <= Math.max(2, name.length / 4)
    ? ` (did you mean ${near}?)`
    : ` (this request takes ${known.length} fields: see its schema in GET /v1/openapi.json)`;
}
