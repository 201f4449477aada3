import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidRequestError } from '../errors.js';

/**
 * The product's pre-hashed password (`password_hash_method: 1`, objects/user.md): the hex
 * SHA-256 of `username:clustername:password`, as a cluster exports its users. Tessera keeps
 * one only until the user's first login with it, which replaces it with an argon2id hash of
 * the password (or until the password is changed): one fast SHA-256, salted by nothing but a
 * name, is no way to keep a password, only a way to move one.
 *
 * The docs do not say which of a user's logins is the "username" of the recipe, so both are
 * tried: the name and the email. Both, and the cluster's name, are taken as they are when
 * the hash arrives and kept beside it: a later rename does not break the recipe it was made with.
 */
const PREFIX = '$product-sha256$';
const HEX = /^[0-9a-f]{64}$/i;

export interface PreHashed {
  /** The hex SHA-256 of `username:clustername:password`. */
  sha256: string;
  /** The cluster whose name it was made with, when not this one (`tessera users import --cluster-name`). */
  clusterName?: string;
}

/** The hex digest of a pre-hashed password, or a 400 that says what it must be. */
export function checkPreHashed(value: string): PreHashed {
  if (!HEX.test(value)) {
    throw new InvalidRequestError(
      'With password_hash_method 1 the password is the hex SHA-256 (64 characters) of "username:clustername:password"',
    );
  }
  return { sha256: value.toLowerCase() };
}

/** What is stored for a pre-hashed password: the digest with the prefixes it may have been made with. */
export function preHashedRecord(
  given: PreHashed,
  logins: { name: string | null; email: string | null },
  clusterName: string,
): string {
  const prefixes = [...new Set([logins.name, logins.email].filter((l): l is string => l !== null))].map(
    (login) => `${login}:${clusterName}:`,
  );
  return `${PREFIX}${prefixes.map((p) => Buffer.from(p).toString('base64url')).join('.')}$${given.sha256}`;
}

export function isPreHashedRecord(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Whether `password` is the one a pre-hashed record was made of; every prefix is tried (constant work for a record). */
export function matchesPreHashed(stored: string, password: string): boolean {
  const [encoded, digest] = stored.slice(PREFIX.length).split('$');
  // No password is empty (Basic can carry one; the recipe of "" would let it in).
  if (password === '') return false;
  if (encoded === undefined || digest === undefined || !HEX.test(digest)) return false;
  const expected = Buffer.from(digest, 'hex');
  let match = false;
  for (const prefix of encoded.split('.')) {
    const actual = createHash('sha256').update(Buffer.from(prefix, 'base64url')).update(password).digest();
    match = timingSafeEqual(actual, expected) || match;
  }
  return match;
}
