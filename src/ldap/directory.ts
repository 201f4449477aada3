import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'ldapts';
import type { Deadline } from '../deadline.js';
import { DirectoryUnavailableError, LdapConnectionError } from '../errors.js';
import { escapeDnValue, escapeFilterValue } from './escape.js';
import { type DirectoryQuery, isQuery, type LdapConfig } from './ldap-config.js';

/** Who the directory says a user is: its DN and the DNs of its groups. */
export interface DirectoryEntry {
  dn: string;
  groups: string[];
}

/** An answer the directory gave, that is not "unavailable": the bind failed, or the entry is not there. */
class NotInDirectory extends Error {}

/**
 * The directory as a login sees it, over ldapts: the URIs tried in order (a refused or
 * silent server is passed over), StartTLS or ldaps:// verified against `ca_cert`, every
 * operation bounded by `directory_timeout_s` and by the login's deadline. A wrong password
 * and a user that is not there answer `undefined`, alike; a directory that cannot be
 * reached throws DirectoryUnavailableError — never mistaken for a wrong password.
 */
export class Directory {
  constructor(private readonly config: LdapConfig) {}

  /** Checks the user's password by a bind as the user, then reads its groups. */
  async authenticate(username: string, password: string, deadline: Deadline): Promise<DirectoryEntry | undefined> {
    // An empty password would be an unauthenticated bind, which servers answer with success.
    if (password === '') return undefined;
    return this.session(deadline, async (client) => {
      const dn = await this.userDn(client, username);
      try {
        await client.bind(dn, password);
      } catch (err) {
        if (resultCode(err) === INVALID_CREDENTIALS) throw new NotInDirectory();
        throw err;
      }
      if (this.config.bind_dn) await this.bindService(client);
      return { dn, groups: await this.groupsOf(client, dn, username) };
    });
  }

  /** The user's DN and groups as the service account reads them (a token's refresh: no password). */
  async lookup(username: string, deadline: Deadline): Promise<DirectoryEntry | undefined> {
    return this.session(deadline, async (client) => {
      if (this.config.bind_dn) await this.bindService(client);
      const dn = await this.userDn(client, username);
      if (this.config.user_dn_template) {
        const found = await client.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] }).catch(notFound);
        if (found.searchEntries.length === 0) throw new NotInDirectory();
      }
      return { dn, groups: await this.groupsOf(client, dn, username) };
    });
  }

  /** A PUT's settings tried before they are stored: connect, TLS, and the service bind. */
  static async probe(config: LdapConfig, deadline: Deadline): Promise<void> {
    const directory = new Directory(config);
    try {
      await directory.session(deadline, async (client) => {
        if (config.bind_dn) await directory.bindService(client);
      });
    } catch (err) {
      if (err instanceof DirectoryUnavailableError) throw new LdapConnectionError(describe(err.reason));
      throw new LdapConnectionError(describe(err));
    }
  }

  private async bindService(client: Client): Promise<void> {
    try {
      await client.bind(this.config.bind_dn, this.config.bind_pass);
    } catch (err) {
      // The service account's settings are wrong: the operator's problem, not the user's.
      throw new DirectoryUnavailableError(`bind as bind_dn failed: ${describe(err)}`);
    }
  }

  private async userDn(client: Client, username: string): Promise<string> {
    const { user_dn_template: template, user_dn_query: query } = this.config;
    if (template) return template.replaceAll('%u', escapeDnValue(username));
    if (!isQuery(query)) throw new DirectoryUnavailableError('neither user_dn_template nor user_dn_query is set');
    const { searchEntries } = await client.search(query.base, { scope: SCOPES[query.scope], filter: fill(query, username), attributes: ['1.1'], sizeLimit: 2 }).catch(notFound);
    // None, or more than one (an ambiguous filter): no one logs in.
    if (searchEntries.length !== 1) throw new NotInDirectory();
    return searchEntries[0]!.dn;
  }

  private async groupsOf(client: Client, dn: string, username: string): Promise<string[]> {
    const { dn_group_attr: attr, dn_group_query: query } = this.config;
    if (attr) {
      const { searchEntries } = await client.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: [attr] }).catch(notFound);
      const entry = searchEntries[0];
      if (!entry) return [];
      const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
      return key ? values(entry[key]) : [];
    }
    if (!isQuery(query)) return [];
    const { searchEntries } = await client.search(query.base, { scope: SCOPES[query.scope], filter: fill(query, username, dn), attributes: ['1.1'] }).catch(notFound);
    return searchEntries.map((e) => e.dn);
  }

  /**
   * One connection for one login: the first URI that answers, upgraded with StartTLS when
   * asked, closed when done. Undefined when the directory said no to the user.
   */
  private async session<T>(deadline: Deadline, work: (client: Client) => Promise<T>): Promise<T | undefined> {
    let lastError: unknown = new Error('no uris');
    for (const url of this.config.uris) {
      const timeoutMs = Math.max(1, Math.min(this.config.directory_timeout_s * 1000, deadline.remaining()));
      if (deadline.expired()) break;
      const tlsOptions = { ...(this.config.ca_cert ? { ca: this.config.ca_cert } : {}), minVersion: 'TLSv1.2' as const };
      // ldapts speaks TLS from the start whenever it is given tlsOptions: only ldaps:// gets them here.
      const secure = url.toLowerCase().startsWith('ldaps:');
      // ldapts is loaded at the first directory check: a node without LDAP does not carry it (~7 MB).
      const { Client } = await import('ldapts');
      const client = new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs, ...(secure && { tlsOptions }) });
      let connected = false;
      try {
        // The upgraded socket is checked against the URI's host (ldapts passes none of its own).
        const { hostname } = new URL(url);
        if (this.config.starttls) await client.startTLS({ ...tlsOptions, host: hostname, ...(isIP(hostname) === 0 && { servername: hostname }) });
        connected = true;
        return await deadline.race(work(client), () => new DirectoryUnavailableError('no answer within the login deadline'));
      } catch (err) {
        if (err instanceof NotInDirectory) return undefined;
        if (err instanceof DirectoryUnavailableError && connected) throw err;
        // An LDAP answer on a live connection is the directory speaking: not a reason to try the next one.
        if (resultCode(err) !== undefined && connected) throw new DirectoryUnavailableError(describe(err));
        lastError = err;
      } finally {
        // Closed before the place it took is given to another check (unbind destroys the socket once
        // its request is written; a connection that cannot take even that is left to its own end).
        await Promise.race([client.unbind().catch(() => {}), sleep(UNBIND_WAIT_MS)]);
      }
    }
    throw new DirectoryUnavailableError(describe(lastError));
  }
}

const UNBIND_WAIT_MS = 100;

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
  if (err instanceof DirectoryUnavailableError) return describe(err.reason);
  const code = resultCode(err);
  if (code !== undefined) {
    // "InvalidCredentialsError" → "invalid credentials (LDAP result 49)", with the server's own words when it gave any.
    const { name: kind, message } = err as Error;
    const name = kind.replace(/Error$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
    const words = message.replace(/\s*Code: 0x[0-9a-f]+\s*$/i, '').trim();
    return `${name} (LDAP result ${code})${words ? `: ${words}` : ''}`;
  }
  const e = err as { code?: unknown; message?: string };
  return e?.message ? `${e.message}${typeof e.code === 'string' ? ` (${e.code})` : ''}` : String(err);
}
