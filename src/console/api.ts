/** An answer of the API other than 2xx: its error_code and message, as the server said them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
    /** The whole answer, for the refusals that carry more than a code and a message (mfa_required). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * One API call with the person's own token (the console has no powers of its own). The
 * X-Requested-With header makes a 401 challenge without Basic, so the browser never opens
 * its own credentials dialog; credentials: 'omit' keeps cookies and the browser's Basic
 * cache out of it — but for the one call that takes the SSO sign-in's cookie (`cookie`).
 */
export async function api<T>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; cookie?: boolean; text?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { 'x-requested-with': 'tessera-console' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: options.cookie ? 'same-origin' : 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'Tessera cannot be reached. Check the connection and try again.');
  }
  const text = await res.text();
  if (res.ok && options.text) return text as T;
  // biome-ignore lint/suspicious/noExplicitAny: the server's JSON, read by the caller as T
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after')) || undefined;
    throw new ApiError(
      res.status,
      json?.error_code ?? 'error',
      json?.message ?? `The server answered ${res.status}.`,
      retry,
      json && typeof json === 'object' ? json : undefined,
    );
  }
  return json as T;
}

/** What a person reads for a failed call: the server's words, and what to do about a 503. */
export function explain(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Something went wrong in the console. Reload the page and try again.';
  if (err.status === 503 && err.code === 'audit_backlog_full')
    return `${err.message} A SIEM sink is behind in blocking mode (Auditing page): bring it back, or switch to best effort there.`;
  if (err.status === 503) {
    const when = err.retryAfterSeconds ? ` in ${err.retryAfterSeconds} s` : ' in a moment';
    return `${err.message} Tessera is busy or cannot reach its store: try again${when}.`;
  }
  if (err.status === 429)
    return `${err.message} Too many attempts from this address: try again in ${err.retryAfterSeconds ?? 60} s.`;
  return err.message;
}

/** An API call as the signed-in person. */
export type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;
