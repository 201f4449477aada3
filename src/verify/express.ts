import { BEARER_CHALLENGE, type ErrorBody, FORBIDDEN, hasRole, tokenOf, UNAUTHORIZED, UNAVAILABLE } from './roles.js';
import { type TesseraClaims, TokenRejectedError, type Verifier } from './verifier.js';

/** What the middleware uses of Express's request and response (Express 4 and 5). */
interface Req {
  headers: { authorization?: string };
  tessera?: TesseraClaims;
}
interface Res {
  status(code: number): Res;
  set(name: string, value: string): Res;
  json(body: unknown): unknown;
}
type Next = (err?: unknown) => void;

function refuse(res: Res, status: number, body: ErrorBody): void {
  if (status === 401) res.set('WWW-Authenticate', BEARER_CHALLENGE);
  if (status === 503) res.set('Retry-After', '5');
  res.status(status).json(body);
}

/**
 * Express middleware: the request must carry a valid Tessera token (401 `invalid_token`
 * otherwise, in Tessera's error shape); its claims are `req.tessera`.
 */
export function tesseraExpress(verifier: Verifier) {
  return (req: Req, res: Res, next: Next): void => {
    const token = tokenOf(req.headers.authorization);
    if (!token) {
      refuse(res, 401, UNAUTHORIZED);
      return;
    }
    verifier.verify(token).then(
      (claims) => {
        req.tessera = claims;
        next();
      },
      (err: unknown) =>
        refuse(
          res,
          err instanceof TokenRejectedError ? 401 : 503,
          err instanceof TokenRejectedError ? UNAUTHORIZED : UNAVAILABLE,
        ),
    );
  };
}

/** Express middleware after tesseraExpress: 403 `forbidden` unless the token holds one of `roles`. */
export function requireRole(...roles: string[]) {
  return (req: Req, res: Res, next: Next): void => {
    if (!req.tessera) refuse(res, 401, UNAUTHORIZED);
    else if (!hasRole(req.tessera, roles)) refuse(res, 403, FORBIDDEN);
    else next();
  };
}
