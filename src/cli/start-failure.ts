import path from 'node:path';
import type { Config } from '../config/config.js';
import { StoreUnavailableError } from '../errors.js';
import { ManagementListenError } from '../metrics/management-listener.js';
import { DataDirLockedError, servingPid } from '../store/data-dir-lock.js';
import { IssuerMismatchError } from '../tokens/store-issuer.js';
import { FirstAdminRefusedError } from '../users/first-admin.js';
import { postgresAddress } from './postgres-address.js';

type SystemError = Error & { code?: string; syscall?: string; path?: string; address?: string; port?: number };

/**
 * What went wrong when `tessera serve` could not start, in one line that names the flag or
 * variable to change — or undefined when the error is not one a user can act on.
 */
export function explainStartFailure(err: unknown, config: Config): string | undefined {
  const inUse = (err as SystemError)?.code === 'EADDRINUSE';
  // A second start of the same server (npm start twice): the other one is what holds the port.
  const other = inUse && !config.databaseUrl ? servingPid(config.dataDir) : undefined;
  if (other !== undefined)
    return `another Tessera${other ? ` (pid ${other})` : ''} serves the data directory ${path.resolve(config.dataDir)} and holds the port: stop it first, or give this one another --data-dir and --listen HOST:PORT`;
  if (
    err instanceof FirstAdminRefusedError ||
    err instanceof ManagementListenError ||
    err instanceof IssuerMismatchError ||
    err instanceof DataDirLockedError
  )
    return err.message;
  const e = err as SystemError;
  const listen = `${config.listen.host}:${config.listen.port}`;
  if (e?.syscall === 'listen' || e?.code === 'EADDRINUSE') {
    if (e.code === 'EADDRINUSE')
      return `${listen} is already in use: stop what listens there, or choose another address with --listen HOST:PORT (TESSERA_LISTEN)`;
    if (e.code === 'EACCES')
      return `not allowed to listen on ${listen} (ports below 1024 need privileges): choose another with --listen HOST:PORT`;
    if (e.code === 'EADDRNOTAVAIL')
      return `${config.listen.host} is not an address of this machine: choose another with --listen HOST:PORT`;
  }
  const tlsFiles = [config.tls.certFile, config.tls.keyFile].filter(Boolean);
  if (e?.path && tlsFiles.includes(e.path)) {
    return `cannot read the TLS file "${e.path}" (${e.code}): check --tls-cert and --tls-key (TESSERA_TLS_CERT, TESSERA_TLS_KEY)`;
  }
  if (
    /^ERR_OSSL|PEM|certificate|private key/i.test(`${e?.code ?? ''} ${e?.message ?? ''}`) &&
    e?.code !== 'SQLITE_NOTADB'
  ) {
    return `the TLS certificate and key cannot be used (${e.message}): check --tls-cert and --tls-key, or leave both out for a self-signed certificate`;
  }
  if (config.databaseUrl && (err instanceof StoreUnavailableError || /^(08|28|3D)/.test(e?.code ?? ''))) {
    const reason =
      err instanceof StoreUnavailableError ? String((err.reason as Error)?.message ?? err.reason ?? '') : e.message;
    return `cannot use PostgreSQL at ${postgresAddress(config.databaseUrl)}${reason ? ` (${reason})` : ''}: check --database-url (TESSERA_DATABASE_URL) and that the server runs`;
  }
  if (
    e?.code &&
    /^(EACCES|EPERM|EROFS|ENOTDIR|ENOSPC|SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_NOTADB|SQLITE_CORRUPT)/.test(e.code)
  ) {
    return `cannot use the data directory "${config.dataDir}" (${e.code}${e.path ? ` on ${e.path}` : ''}): choose another with --data-dir (TESSERA_DATA_DIR), or fix its permissions`;
  }
  return undefined;
}
