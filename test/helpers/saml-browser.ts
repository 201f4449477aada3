/** An HTML form as a browser would submit it: where, and its fields (entities decoded). */
export function formOf(html: string): { action: string | undefined; fields: Record<string, string> } {
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#0?39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&amp;/g, '&');
  const fields: Record<string, string> = {};
  for (const [input] of html.matchAll(/<input\b[^>]*>/gi)) {
    const name = /name="([^"]*)"/i.exec(input)?.[1];
    if (name) fields[name] = decode(/value="([^"]*)"/i.exec(input)?.[1] ?? '');
  }
  const action = /<form[^>]*action="([^"]*)"/i.exec(html)?.[1];
  return { action: action === undefined ? undefined : decode(action), fields };
}

/**
 * What a browser does at an identity provider, without one: cookies kept, redirects followed
 * by hand (up to where it would leave the IdP), its login form filled in.
 */
export class IdpBrowser {
  private readonly jar = new Map<string, string>();

  constructor(private readonly idpOrigin: string) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '' || value === 'deleted' || /expires=Thu, 01[- ]Jan[- ]1970/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /** Follows redirects while they stay at the identity provider; the last answer and where it went (or would go). */
  async follow(url: string, init?: RequestInit): Promise<{ res: Response; url: string; next?: string }> {
    let res = await this.request(url, init);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(res.headers.get('location')!, url).toString();
      if (!next.startsWith(this.idpOrigin)) return { res, url, next };
      url = next;
      res = await this.request(url);
    }
    return { res, url };
  }

  /** From a sign-in URL to the form the IdP would post to the consumer: its action and fields (SAMLResponse). */
  async signIn(
    startUrl: string,
    username: string,
    password: string,
  ): Promise<{ action: string; SAMLResponse: string; RelayState?: string }> {
    let { res, url } = await this.follow(startUrl);
    let html = await res.text();
    if (/name="password"/.test(html)) {
      const login = formOf(html);
      const body = new URLSearchParams({ ...login.fields, username, password });
      ({ res, url } = await this.follow(new URL(login.action ?? '', url).toString(), {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }));
      html = await res.text();
    }
    const answer = formOf(html);
    if (!answer.fields.SAMLResponse || !answer.action)
      throw new Error(
        `the identity provider gave no answer to post (HTTP ${res.status} at ${url}): ${html
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 300)}`,
      );
    return {
      action: answer.action,
      SAMLResponse: answer.fields.SAMLResponse,
      ...(answer.fields.RelayState && { RelayState: answer.fields.RelayState }),
    };
  }
}
