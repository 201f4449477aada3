import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { ConfigError } from '../config/config.js';

const PREFIX = 'sealed.v1.';

/** A missing or wrong master key: a configuration problem, told as such. */
export class KeySealError extends ConfigError {}

/**
 * Private signing keys at rest: AES-256-GCM under the master key, with the kid as
 * associated data so that a sealed key cannot be moved to another row. Without a master
 * key, keys are kept as plain JWK JSON.
 */
export class KeySealer {
  constructor(private readonly masterKey?: Buffer) {}

  get sealing(): boolean {
    return this.masterKey !== undefined;
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /** `kid`: what the value is bound to (a key's id, or a setting's name). */
  seal(jwk: JWK | Record<string, string>, kid: string): string {
    if (!this.masterKey) return JSON.stringify(jwk);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv).setAAD(Buffer.from(kid));
    const body = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
    return PREFIX + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  open<T = JWK>(stored: string, kid: string): T {
    if (!KeySealer.isSealed(stored)) return JSON.parse(stored) as T;
    if (!this.masterKey) {
      throw new KeySealError(
        "the store's secrets (signing keys, the LDAP bind password, the SSO service key, the cluster certificates' keys) are encrypted: set TESSERA_MASTER_KEY (or --master-key-file) to the key they were sealed with",
      );
    }
    const [iv, tag, body] = stored
      .slice(PREFIX.length)
      .split('.')
      .map((p) => Buffer.from(p, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.masterKey, iv!).setAAD(Buffer.from(kid));
      decipher.setAuthTag(tag!);
      return JSON.parse(Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8')) as T;
    } catch {
      throw new KeySealError(
        `the master key does not open ${whatIs(kid)}: is it the one the secrets were sealed with?`,
      );
    }
  }
}

/** What a sealed value is, by what it is bound to (never the value). */
function whatIs(kid: string): string {
  if (kid.startsWith('ldap.')) return 'the LDAP bind password';
  if (kid.startsWith('sso.')) return 'the SSO service key';
  if (kid.startsWith('api.')) return "the API certificate's key";
  if (kid.startsWith('certificate.')) return `the ${kid.split('.')[1]} certificate's key`;
  return `signing key ${kid}`;
}
