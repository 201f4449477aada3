import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import Value from 'typebox/value';
import { ConfigError, type ConfigShape, configSchema, defaults, SETTINGS, type Setting, spelled } from './settings.js';

export { API_LINES, type ApiLine, ConfigError, LOG_LEVELS, parseListen } from './settings.js';

/** Tessera's configuration: one value a setting of SETTINGS (settings.ts), validated and frozen. */
export type Config = ConfigShape;
export type Argon2Params = Config['argon2'];

export const ConfigSchema = configSchema();
export const DEFAULTS: Config = deepFreeze(defaults());

/** OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1 (the defaults). */
export const OWASP_ARGON2: Argon2Params = DEFAULTS.argon2;

/** "--listen (TESSERA_LISTEN) port" for the config path "/listen/port". */
function settingAt(instancePath: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  for (let n = Math.min(parts.length, 2); n > 0; n--) {
    const s = (SETTINGS as Record<string, Setting>)[parts.slice(0, n).join('.')];
    if (s) return [spelled(s), ...parts.slice(n)].join(' ');
  }
  return instancePath;
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? DeepPartial<T[K]> : T[K] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Merges overrides onto the defaults, validates the result and freezes it. */
export function makeConfig(given: DeepPartial<Config> = {}): Config {
  const merged: Record<string, unknown> = { ...DEFAULTS };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const base = merged[key];
    merged[key] = isObject(base) && isObject(value) ? { ...base, ...value } : value;
  }
  if (!Value.Check(ConfigSchema, merged)) {
    const problems = [...Value.Errors(ConfigSchema, merged)].map((e) => `${settingAt(e.instancePath)} ${e.message}`);
    throw new ConfigError([...new Set(problems)].join('; '));
  }
  const config = merged as Config;
  if (config.masterKey !== undefined && masterKeyBytes(config.masterKey).length !== 32) {
    throw new ConfigError('the master key must be base64 of 32 random bytes (openssl rand -base64 32)');
  }
  if (config.mtls.certHeader && config.mtls.trustedProxies.length === 0) {
    throw new ConfigError(
      "--client-cert-header needs --trusted-proxy: the header is believed only from the proxy's addresses",
    );
  }
  const notAnAddress = config.mtls.trustedProxies.find((entry) => !isAddressOrCidr(entry));
  if (notAnAddress !== undefined)
    throw new ConfigError(
      `--trusted-proxy takes addresses or CIDRs (10.0.0.5, 10.0.0.0/8, fd00::/8): not ${notAnAddress}`,
    );
  if (config.mtls.certHeader && config.tls.enabled) {
    throw new ConfigError(
      '--client-cert-header is for a TLS-terminating proxy in front (--no-tls); with TLS here, clients present their certificates to Tessera itself',
    );
  }
  if (Boolean(config.tls.certFile) !== Boolean(config.tls.keyFile)) {
    throw new ConfigError('--tls-cert and --tls-key must be given together');
  }
  return deepFreeze(structuredClone(config));
}

/** 192.0.2.1, 2001:db8::1, or one of them with a prefix length (/0 to /32, /128). */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, more] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || more !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * Where clients and services reach Tessera: --public-url, or the listen address with its
 * scheme (this machine's name when it listens on every address). No trailing slash.
 */
/** The folder SIEM file sinks write in: --siem-file-dir, else <data-dir>/siem. */
export function siemFileDirOf(config: Config): string {
  return path.resolve(config.siemFileDir ?? path.join(config.dataDir, 'siem'));
}

export function publicUrlOf(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const { host, port } = config.listen;
  const name = ['0.0.0.0', '::', ''].includes(host) ? hostname() : host.includes(':') ? `[${host}]` : host;
  return `${config.tls.enabled ? 'https' : 'http'}://${name}:${port}`;
}

/** The "iss" of Tessera's tokens. */
export function issuerOf(config: Config): string {
  return config.issuer ?? publicUrlOf(config);
}

/** The "aud" of Tessera's tokens. */
export function audiencesOf(config: Config): string[] {
  return config.audiences.length > 0 ? [...config.audiences] : [publicUrlOf(config)];
}

export function masterKeyBytes(base64: string): Buffer {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(base64.trim()) ? Buffer.from(base64.trim(), 'base64') : Buffer.alloc(0);
}

function deepFreeze<T>(value: T): T {
  for (const v of Object.values(value as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
