import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, SearchOptions } from 'ldapts';
import type { Deadline } from '../deadline.js';
import { DirectoryUnavailableError, LdapConnectionError } from '../errors.js';
import { escapeDnValue, escapeFilterValue } from './escape.js';
import { type DirectoryQuery, isQuery, type LdapConfig } from './ldap-config.js';

/** Who the directory says a user is: its entry's DN as the directory writes it, and its groups' DNs. */
export interface DirectoryEntry {
  dn: string;
  groups: string[];
}

/** An answer the directory gave, that is not "unavailable": the bind failed, or the entry is not there. */
class NotInDirectory extends Error {}

/** How long a URI that gave no answer is tried after the others. */
const PASSED_OVER_MS = 60_000;

/**
 * The URIs that gave no answer lately (refused, reset, TLS failed, silent): tried after the
 * others for a minute, so that a dead first server costs one login its wait, not every one.
 */
export class PassedOver {
  private readonly until = new Map<string, number>();

  order(uris: readonly string[]): string[] {
    const now = performance.now();
    const over = (uri: string) => (this.until.get(uri) ?? 0) > now;
    return [...uris.filter((u) => !over(u)), ...uris.filter(over)];
  }

  silent(uri: string): void {
    this.until.set(uri, performance.now() + PASSED_OVER_MS);
  }

  answered(uri: string): void {
    this.until.delete(uri);
  }
}

/**
 * One connection, and whether the directory behind it has answered anything yet: until it
 * has, any trouble (refused, reset, a TLS failure, silence) sends the login to the next URI;
 * once it has, its word — also "no", also a fault — is the directory's.
 */
class Connection {
  answered = false;

  constructor(readonly client: Client) {}

  bind(dn: string, password: string): Promise<void> {
    return this.op(() => this.client.bind(dn, password));
  }

  search(base: string, options: SearchOptions) {
    return this.op(() => this.client.search(base, options));
  }

  startTLS(options: Parameters<Client['startTLS']>[0]): Promise<void> {
    return this.op(() => this.client.startTLS(options));
  }

  private async op<T>(call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      this.answered = true;
      return result;
    } catch (err) {
      if (resultCode(err) !== undefined) this.answered = true;
      throw err;
    }
  }
}

/**
 * The directory as a login sees it, over ldapts: the URIs tried in order, StartTLS or
 * ldaps:// verified against `ca_cert`, every operation bounded by `directory_timeout_s` and
 * by the login's deadline. The service account (bind_dn) binds before anything is read, as
 * directories that let anonymous clients read nothing (Active Directory's default) require.
 * A wrong password and a user that is not there answer `undefined`, alike; a directory that
 * cannot be reached throws DirectoryUnavailableError — never mistaken for a wrong password.
 */
export class Directory {
  constructor(
    private readonly config: LdapConfig,
    private readonly passedOver: PassedOver,
  ) {}

  /** Checks the user's password by a bind as the user, then reads its entry back and its groups. */
  async authenticate(username: string, password: string, deadline: Deadline): Promise<DirectoryEntry | undefined> {
    // An empty password would be an unauthenticated bind, which servers answer with success.
    if (password === '') return undefined;
    return this.session(deadline, async (conn) => {
      if (this.config.bind_dn) await this.bindService(conn);
      const dn = await this.userDn(conn, username);
      try {
        await conn.bind(dn, password);
      } catch (err) {
        if (resultCode(err) === INVALID_CREDENTIALS) throw new NotInDirectory();
        throw err;
      }
      // The groups with the service account's rights; without one, as the user itself.
      if (this.config.bind_dn) await this.bindService(conn);
      return this.entryOf(conn, dn, username);
    });
  }

  /** A user's entry and groups as the service account reads them, by name (whether it is there: a local name must not take it). */
  async lookup(username: string, deadline: Deadline): Promise<DirectoryEntry | undefined> {
    return this.session(deadline, async (conn) => {
      if (this.config.bind_dn) await this.bindService(conn);
      return this.entryOf(conn, await this.userDn(conn, username), username);
    });
  }

  /** The DN of a user's entry, by name, found as a login finds it (the service account's search, or the template): no password checked. */
  async findDn(username: string, deadline: Deadline): Promise<string | undefined> {
    if (this.config.user_dn_template) return this.config.user_dn_template.replaceAll('%u', escapeDnValue(username));
    return this.session(deadline, async (conn) => {
      if (this.config.bind_dn) await this.bindService(conn);
      return this.userDn(conn, username);
    });
  }

  /** A PUT's settings tried before they are stored: connect, TLS, and the service bind, each URI in turn until one answers. */
  static async probe(config: LdapConfig, passedOver: PassedOver, deadline: Deadline): Promise<void> {
    const directory = new Directory(config, passedOver);
    try {
      await directory.session(deadline, async (conn) => {
        if (config.bind_dn) await directory.bindService(conn);
      });
    } catch (err) {
      const unavailable = err instanceof DirectoryUnavailableError;
      throw new LdapConnectionError(describe(unavailable ? err.reason : err), unavailable && err.answered);
    }
  }

  private async bindService(conn: Connection): Promise<void> {
    try {
      await conn.bind(this.config.bind_dn, this.config.bind_pass);
    } catch (err) {
      // The service account's settings are wrong: the operator's problem, not the user's.
      if (conn.answered) throw new DirectoryUnavailableError(`bind as bind_dn failed: ${describe(err)}`, true);
      throw err;
    }
  }

  private async userDn(conn: Connection, username: string): Promise<string> {
    const { user_dn_template: template, user_dn_query: query } = this.config;
    if (template) return template.replaceAll('%u', escapeDnValue(username));
    if (!isQuery(query)) throw new DirectoryUnavailableError('neither user_dn_template nor user_dn_query is set');
    const { searchEntries } = await conn
      .search(query.base, {
        scope: SCOPES[query.scope],
        filter: fill(query, username),
        attributes: ['1.1'],
        sizeLimit: 2,
      })
      .catch(notFound);
    // None, or more than one (an ambiguous filter): no one logs in.
    if (searchEntries.length !== 1) throw new NotInDirectory();
    return searchEntries[0]!.dn;
  }

  /**
   * The entry at `dn` read back — its DN as the directory writes it, whatever spelling found
   * it ("uid=Alice\ ,…" is "uid=alice,…") — and its groups.
   */
  private async entryOf(conn: Connection, dn: string, username: string): Promise<DirectoryEntry> {
    const { dn_group_attr: attr, dn_group_query: query } = this.config;
    const attributes = [...(attr ? [attr] : []), USER_ACCOUNT_CONTROL];
    const { searchEntries } = await conn
      .search(dn, { scope: 'base', filter: '(objectClass=*)', attributes })
      .catch(notFound);
    const entry = searchEntries[0];
    // An Active Directory account that is disabled is as good as gone (its bind fails too, but a refresh binds no user).
    if (!entry || Number(entry[USER_ACCOUNT_CONTROL] ?? 0) & ACCOUNT_DISABLED) throw new NotInDirectory();
    if (attr) {
      const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
      return { dn: entry.dn, groups: key ? values(entry[key]) : [] };
    }
    if (!isQuery(query)) return { dn: entry.dn, groups: [] };
    const groups = await conn
      .search(query.base, { scope: SCOPES[query.scope], filter: fill(query, username, entry.dn), attributes: ['1.1'] })
      .catch(notFound);
    return { dn: entry.dn, groups: groups.searchEntries.map((e) => e.dn) };
  }

  /**
   * One connection for one check: the first URI that answers, upgraded with StartTLS when
   * asked, closed when done. Undefined when the directory said no to the user.
   */
  private async session<T>(deadline: Deadline, work: (conn: Connection) => Promise<T>): Promise<T | undefined> {
    let lastError: unknown = new Error('no uris');
    // ldapts is loaded at the first directory check: a node without LDAP does not carry it (~7 MB).
    const { Client } = await import('ldapts');
    for (const url of this.passedOver.order(this.config.uris)) {
      if (deadline.expired()) break;
      const timeoutMs = Math.max(1, Math.min(this.config.directory_timeout_s * 1000, deadline.remaining()));
      const tlsOptions = {
        ...(this.config.ca_cert ? { ca: this.config.ca_cert } : {}),
        minVersion: 'TLSv1.2' as const,
      };
      // ldapts speaks TLS from the start whenever it is given tlsOptions: only ldaps:// gets them here.
      const secure = url.toLowerCase().startsWith('ldaps:');
      const conn = new Connection(
        new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs, ...(secure && { tlsOptions }) }),
      );
      try {
        // The upgraded socket is checked against the URI's host (ldapts passes none of its own).
        const { hostname } = new URL(url);
        if (this.config.starttls)
          await conn.startTLS({ ...tlsOptions, host: hostname, ...(isIP(hostname) === 0 && { servername: hostname }) });
        const result = await deadline.race(
          work(conn),
          () => new DirectoryUnavailableError('no answer within the login deadline'),
        );
        this.passedOver.answered(url);
        return result;
      } catch (err) {
        if (err instanceof NotInDirectory) {
          this.passedOver.answered(url);
          return undefined;
        }
        if (conn.answered) {
          this.passedOver.answered(url);
          throw err instanceof DirectoryUnavailableError && err.answered
            ? err
            : new DirectoryUnavailableError(
                describe(err instanceof DirectoryUnavailableError ? err.reason : err),
                true,
              );
        }
        // Nothing came back from this server: the next one may answer.
        this.passedOver.silent(url);
        lastError = err instanceof DirectoryUnavailableError ? err.reason : err;
      } finally {
        // Closed before the place it took is given to another check (unbind destroys the socket once
        // its request is written; a connection that cannot take even that is left to its own end).
        await Promise.race([conn.client.unbind().catch(() => {}), sleep(UNBIND_WAIT_MS)]);
      }
    }
    throw new DirectoryUnavailableError(describe(lastError));
  }
}

const UNBIND_WAIT_MS = 100;

/** Active Directory's account flags, and the one that says an account is disabled. */
const USER_ACCOUNT_CONTROL = 'userAccountControl';
const ACCOUNT_DISABLED = 0x2;

/** LDAP result codes (RFC 4511) that mean something to a login. */
const SIZE_LIMIT_EXCEEDED = 4;
const NO_SUCH_OBJECT = 32;
const INVALID_CREDENTIALS = 49;

/**
 * The LDAP result code of an error ldapts threw for the directory's answer (its ResultCodeError
 * carries a numeric code; a socket's error carries a string one, like ECONNREFUSED).
 */
function resultCode(err: unknown): number | undefined {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}

/** The product's scope names as LDAP's. */
const SCOPES = { base: 'base', one: 'one', subtree: 'sub' } as const;

/** A filter with its placeholders filled, each value escaped (RFC 4515). */
function fill(query: DirectoryQuery, username: string, dn?: string): string {
  return query.filter.replaceAll('%u', escapeFilterValue(username)).replaceAll('%D', escapeFilterValue(dn ?? ''));
}

/**
 * A search whose base is not there (32) answers "no entry", as an empty result does; one
 * that found too many (4, sizeLimitExceeded: an ambiguous user filter) logs no one in.
 */
function notFound(err: unknown): never {
  const code = resultCode(err);
  if (code === NO_SUCH_OBJECT || code === SIZE_LIMIT_EXCEEDED) throw new NotInDirectory();
  throw err;
}

function values(v: unknown): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

/** What went wrong, for the operator: the library's message, never a password (none is in it). */
function describe(err: unknown): string {
  if (err instanceof DirectoryUnavailableError) return err.reason === undefined ? err.message : describe(err.reason);
  const code = resultCode(err);
  if (code !== undefined) {
    // "InvalidCredentialsError" → "invalid credentials (LDAP result 49)", with the server's own words when it gave any.
    const { name: kind, message } = err as Error;
    const name = kind
      .replace(/Error$/, '')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    const words = message.replace(/\s*Code: 0x[0-9a-f]+\s*$/i, '').trim();
    return `${name} (LDAP result ${code})${words ? `: ${words}` : ''}`;
  }
  const e = err as { code?: unknown; message?: string };
  return e?.message ? `${e.message}${typeof e.code === 'string' ? ` (${e.code})` : ''}` : String(err);
}
