import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidTokenError } from '../../src/errors.js';
import type { KeyStore, StoredKey } from '../../src/tokens/key-store.js';
import { KeyRing } from '../../src/tokens/key-ring.js';
import { KeySealer } from '../../src/tokens/key-sealer.js';
import { TokenIssuer } from '../../src/tokens/token-issuer.js';
import { TokenVerifier } from '../../src/tokens/token-verifier.js';
import type { User } from '../../src/users/user.js';

/** An in-memory key store: this suite is about the token logic, not persistence. */
class MemoryKeyStore implements KeyStore {
  keys: StoredKey[] = [];
  async listPublished() {
    return [...this.keys];
  }
  async add(key: StoredKey) {
    this.keys.unshift(key);
  }
  async addFirst(key: StoredKey) {
    if (this.keys.length > 0) return false;
    this.keys.unshift(key);
    return true;
  }
  async activateDue() {
    return false;
  }
  async replacePrivateKey() {}
}

const user: User = {
  uid: 7,
  username: 'dave',
  name: null,
  role: 'cluster_member',
  passwordIssueDate: new Date(),
  passwordExpiresAt: null,
  lockedUntil: null,
  lockResetAt: null,
  tokenEpoch: 3,
  createdAt: new Date(),
  lastLogin: null,
};

let now: number;
let ring: KeyRing;
let store: MemoryKeyStore;
const clock = () => now;

beforeEach(async () => {
  now = Date.UTC(2026, 0, 1);
  store = new MemoryKeyStore();
  ring = await KeyRing.load(store, ringOptions());
});

function ringOptions() {
  return { sealer: new KeySealer(), clock, activationDelayMs: 0, leewayMs: 5000 };
}

function verifier(leeway = 5, issuer = 'tessera') {
  return new TokenVerifier(ring, issuer, leeway, clock);
}

async function issue(ttl = 300) {
  return new TokenIssuer(ring, 'tessera', clock).issue(user, ttl);
}

const claims = { uid: 7, username: 'dave', roles: ['cluster_member'], ver: 3 };

/** A token made outside the issuer, to try what an attacker could send. */
function forge(header: { alg: string; kid?: string }, key: Parameters<SignJWT['sign']>[0], body: object = claims, iss?: string) {
  const iat = Math.floor(now / 1000);
  const jwt = new SignJWT({ ...body }).setProtectedHeader({ typ: 'JWT', ...header });
  if (iss !== '') jwt.setIssuer(iss ?? 'tessera');
  return jwt
    .setSubject('7')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .setJti('x')
    .sign(key);
}

describe('TokenVerifier', () => {
  it('accepts a token it issued and returns its claims', async () => {
    const verified = await verifier().verify(await issue());
    expect(verified).toMatchObject({ iss: 'tessera', sub: '7', uid: 7, username: 'dave', roles: ['cluster_member'], ver: 3 });
    expect(verified.exp - verified.iat).toBe(300);
  });

  it('refuses alg "none"', async () => {
    const iat = Math.floor(now / 1000);
    const token = new UnsecuredJWT(claims).setIssuer('tessera').setSubject('7').setIssuedAt(iat).setExpirationTime(iat + 60).setJti('x').encode();
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses HS256 signed with the public key as the secret (algorithm confusion)', async () => {
    const kid = ring.jwks().keys[0]!.kid!;
    const publicJwk = JSON.stringify(ring.jwks().keys[0]);
    const token = await forge({ alg: 'HS256', kid }, new TextEncoder().encode(publicJwk));
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a token signed by a key outside the ring, even with a known kid', async () => {
    const kid = ring.jwks().keys[0]!.kid!;
    const { privateKey } = generateKeyPairSync('ed25519');
    const token = await forge({ alg: 'EdDSA', kid }, privateKey);
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses another issuer', async () => {
    await expect(verifier(5, 'someone-else').verify(await issue())).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('allows exp to pass by the leeway and no more', async () => {
    const token = await issue(1);
    now += 5_000; // 4 s past exp
    await expect(verifier(5).verify(token)).resolves.toBeDefined();
    await expect(verifier(0).verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
    now += 2_000; // 6 s past exp
    await expect(verifier(5).verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a token issued further in the future than the leeway', async () => {
    now += 60_000;
    const token = await issue();
    now -= 60_000;
    await expect(verifier(5).verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a token signed with our key but without iss (RFC 8725 §3.8: a required claim)', async () => {
    const { kid, privatePem } = ring.signingKey();
    const withIss = await forge({ alg: 'EdDSA', kid }, createPrivateKey(privatePem));
    await expect(verifier().verify(withIss)).resolves.toMatchObject({ uid: 7 });
    const token = await forge({ alg: 'EdDSA', kid }, createPrivateKey(privatePem), claims, '');
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a signed token without the expected claims', async () => {
    const { kid, privatePem } = ring.signingKey();
    const token = await forge({ alg: 'EdDSA', kid }, createPrivateKey(privatePem), { ...claims, uid: 'seven' });
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('accepts a token another library signed with our key, and refuses one typed otherwise', async () => {
    const { kid, privatePem } = ring.signingKey();
    const key = createPrivateKey(privatePem);
    await expect(verifier().verify(await forge({ alg: 'EdDSA', kid }, key))).resolves.toMatchObject({ uid: 7 });
    const typed = await forge({ alg: 'EdDSA', kid, typ: 'at+jwt' } as never, key);
    await expect(verifier().verify(typed)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('verifies a token once and answers again from its cache, but never past exp', async () => {
    const token = await issue(1);
    const v = verifier(0);
    await v.verify(token);
    const find = vi.spyOn(ring, 'findVerificationKey');
    await v.verify(token);
    expect(find).not.toHaveBeenCalled();
    now += 2_000;
    await expect(v.verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('KeyRing', () => {
  it('makes one Ed25519 key on first load and reuses it', async () => {
    expect(store.keys).toHaveLength(1);
    const again = await KeyRing.load(store, ringOptions());
    expect(store.keys).toHaveLength(1);
    expect(again.signingKey().kid).toBe(ring.signingKey().kid);
    expect(JSON.parse(store.keys[0]!.privateKey)).toMatchObject({ kty: 'OKP', crv: 'Ed25519', d: expect.any(String) });
  });
});
