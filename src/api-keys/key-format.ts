import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import baseX from 'base-x';

/**
 * An API key as it is written: `tsr_`, 32 random bytes in base62 (43 characters, left-padded),
 * and a checksum of those (CRC-32 in base62, 6 characters) — the shape of GitHub's tokens, so
 * that a secret scanner can tell a key from noise without asking the server. 256 random bits
 * cannot be guessed: a key is stored as its SHA-256 (no slow hash is needed).
 */
export const KEY_PREFIX = 'tsr_';
const BASE62 = baseX('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
/** How much of a key a list shows: the prefix and 8 characters (48 bits of 256: nothing to guess from). */
const SHOWN = KEY_PREFIX.length + 8;

const pad = (text: string, length: number) => text.padStart(length, '0');
const checksumOf = (body: string) => pad(BASE62.encode(u32(crc32(body))), CHECKSUM_LENGTH);

function u32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A new key: shown to its owner once, never stored. */
export function newKey(): string {
  const body = pad(BASE62.encode(randomBytes(32)), BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksumOf(body)}`;
}

/** Whether a secret is written as a key is, checksum included (a password that merely starts with `tsr_` is not). */
export function isKeyShaped(secret: string): boolean {
  if (secret.length !== KEY_LENGTH || !SHAPE.test(secret)) return false;
  const body = secret.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksumOf(body) === secret.slice(-CHECKSUM_LENGTH);
}

/** What a key is stored and looked up by: SHA-256, hex (one call: no Hash object a check). */
export function keyHash(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Whether two hashes are one, in time that does not depend on where they differ. */
export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The part of a key a list shows. */
export const shownPrefix = (key: string) => key.slice(0, SHOWN);

/** A key's public id (`key_id`): 96 random bits, never part of the secret. */
export const newKeyId = () => `key_${pad(BASE62.encode(randomBytes(12)), 17)}`;
