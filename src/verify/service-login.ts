/** Credentials of a user with the token_verifier role. */
export interface ServiceCredentials {
  username: string;
  password: string;
}

/** A token lives this long; it is renewed a minute before its end, or at once after a 401. */
const TTL_S = 3600;
const RENEW_BEFORE_MS = 60_000;

/** A service's own Tessera token, for the revocation feed and introspection (7.22 login). */
export class ServiceLogin {
  private token?: { value: string; renewAt: number };

  constructor(
    private readonly loginUrl: string,
    private readonly credentials: ServiceCredentials,
  ) {}

  async authorization(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return `Bearer ${this.token.value}`;
    const basic = Buffer.from(`${this.credentials.username}:${this.credentials.password}`, 'utf8').toString('base64');
    const res = await fetch(this.loginUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ttl: TTL_S }),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; message?: string };
    if (!res.ok || !body.access_token)
      throw new Error(`the service's login was refused: ${body.message ?? res.status}`);
    this.token = { value: body.access_token, renewAt: Date.now() + TTL_S * 1000 - RENEW_BEFORE_MS };
    return `Bearer ${this.token.value}`;
  }

  /** The token was refused: log in again next time. */
  forget(): void {
    this.token = undefined;
  }
}
