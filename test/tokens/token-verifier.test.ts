import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidTokenError } from '../../src/errors.js';
import { EventHub } from '../../src/events.js';
import { AcceptedIssuers, fixedOrigins } from '../../src/tokens/accepted-issuers.js';
import { KeyRing } from '../../src/tokens/key-ring.js';
import { KeySealer } from '../../src/tokens/key-sealer.js';
import type { KeyStore, StoredKey } from '../../src/tokens/key-store.js';
import { SIGNING_ALGS, type SigningAlg } from '../../src/tokens/signing-alg.js';
import type { IssuerRecord } from '../../src/tokens/store-issuer.js';
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
  name: 'dave',
  email: null,
  logins: ['dave'],
  roleUids: [2],
  rights: ['cluster_member'],
  resources: [],
  authMethod: 'regular',
  emailAlerts: true,
  clusterEmailAlerts: false,
  bdbsEmailAlerts: null,
  passwordIssueDate: new Date(),
  passwordExpiresAt: null,
  lockedUntil: null,
  lockResetAt: null,
  realm: 'local',
  certificateSubjectLine: null,
  directoryKey: null,
  mfa: false,
  mfaRequired: false,
  tokenEpoch: 3,
  createdAt: new Date(),
  lastLogin: null,
};

const ISS = 'https://tessera.example:9443';
const AUD = 'https://tessera.example:9443';

let now: number;
let ring: KeyRing;
let store: MemoryKeyStore;
const clock = () => now;

function ringOptions(alg: SigningAlg) {
  return { sealer: new KeySealer(), clock, alg, activationDelayMs: 0, leewayMs: 5000 };
}

function verifier(leeway = 5, issuer = ISS, audiences = [AUD]) {
  return new TokenVerifier(ring, fixedOrigins(issuer, audiences), leeway, clock);
}

async function issue(ttl = 300, audiences = [AUD]) {
  return new TokenIssuer(ring, ISS, audiences, fixedOrigins(ISS, audiences), clock, new EventHub()).issue(user, ttl);
}

const claims = { uid: 7, username: 'dave', roles: ['cluster_member'], ver: 3 };

/** A token made outside the issuer, to try what an attacker could send; '' leaves iss or aud out. */
function forge(
  header: { alg: string; kid?: string },
  key: Parameters<SignJWT['sign']>[0],
  body: object = claims,
  { iss = ISS, aud = AUD }: { iss?: string; aud?: string } = {},
) {
  const iat = Math.floor(now / 1000);
  const jwt = new SignJWT({ ...body }).setProtectedHeader({ typ: 'JWT', ...header });
  if (iss !== '') jwt.setIssuer(iss);
  if (aud !== '') jwt.setAudience(aud);
  return jwt
    .setSubject('7')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .setJti('x')
    .sign(key);
}

const OUTSIDE_KEY: Record<SigningAlg, () => ReturnType<typeof generateKeyPairSync>['privateKey']> = {
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  EdDSA: () => generateKeyPairSync('ed25519').privateKey,
};

describe.each(SIGNING_ALGS)('TokenVerifier with an %s key', (alg) => {
  beforeEach(async () => {
    now = Date.UTC(2026, 0, 1);
    store = new MemoryKeyStore();
    ring = await KeyRing.load(store, ringOptions(alg));
  });

  it('accepts a token it issued and returns its claims', async () => {
    const token = await issue();
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg, typ: 'JWT' });
    const verified = await verifier().verify(token);
    expect(verified).toMatchObject({
      iss: ISS,
      aud: AUD,
      sub: '7',
      uid: 7,
      username: 'dave',
      roles: ['cluster_member'],
      ver: 3,
    });
    expect(verified.exp - verified.iat).toBe(300);
  });

  it('refuses alg "none"', async () => {
    const iat = Math.floor(now / 1000);
    const token = new UnsecuredJWT(claims)
      .setIssuer(ISS)
      .setAudience(AUD)
      .setSubject('7')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti('x')
      .encode();
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
    const token = await forge({ alg, kid }, OUTSIDE_KEY[alg]());
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses another issuer, and a token for another audience or none', async () => {
    await expect(verifier(5, 'https://someone-else').verify(await issue())).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verifier().verify(await issue(300, ['https://other-service']))).rejects.toBeInstanceOf(
      InvalidTokenError,
    );
    const { kid, privatePem } = ring.signingKey();
    const noAud = await forge({ alg, kid }, createPrivateKey(privatePem), claims, { aud: '' });
    await expect(verifier().verify(noAud)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('accepts a token for one of several audiences', async () => {
    const token = await issue(300, [AUD, 'https://cluster.example']);
    await expect(verifier(5, ISS, ['https://cluster.example']).verify(token)).resolves.toMatchObject({ uid: 7 });
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
    const withIss = await forge({ alg, kid }, createPrivateKey(privatePem));
    await expect(verifier().verify(withIss)).resolves.toMatchObject({ uid: 7 });
    const token = await forge({ alg, kid }, createPrivateKey(privatePem), claims, { iss: '' });
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a signed token without the expected claims', async () => {
    const { kid, privatePem } = ring.signingKey();
    const token = await forge({ alg, kid }, createPrivateKey(privatePem), { ...claims, uid: 'seven' });
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('accepts a token another library signed with our key, and refuses one typed otherwise', async () => {
    const { kid, privatePem } = ring.signingKey();
    const key = createPrivateKey(privatePem);
    await expect(verifier().verify(await forge({ alg, kid }, key))).resolves.toMatchObject({ uid: 7 });
    const typed = await forge({ alg, kid, typ: 'at+jwt' } as never, key);
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

  it('knows a cached token without waiting, never past exp, and never another payload under its signature', async () => {
    const token = await issue(1);
    const v = verifier(0);
    expect(v.known(token)).toBeUndefined();
    await v.verify(token);
    expect(v.known(token)).toMatchObject({ uid: 7, roles: ['cluster_member'] });
    // The cache is keyed by the signature: an admin's claims under the copied signature are verified, and refused.
    const [header, , signature] = token.split('.');
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const altered = `${header}.${Buffer.from(JSON.stringify({ ...payload, roles: ['admin'] })).toString('base64url')}.${signature}`;
    expect(v.known(altered)).toBeUndefined();
    await expect(v.verify(altered)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(v.known(token)).toMatchObject({ roles: ['cluster_member'] });
    now += 2_000;
    expect(v.known(token)).toBeUndefined();
  });

  it('makes one key of its algorithm on first load and reuses it', async () => {
    expect(store.keys).toHaveLength(1);
    expect(store.keys[0]!.alg).toBe(alg);
    const again = await KeyRing.load(store, ringOptions(alg));
    expect(store.keys).toHaveLength(1);
    expect(again.signingKey().kid).toBe(ring.signingKey().kid);
    const kty = { ES256: 'EC', RS256: 'RSA', EdDSA: 'OKP' }[alg];
    expect(JSON.parse(store.keys[0]!.privateKey)).toMatchObject({ kty, d: expect.any(String) });
    expect(ring.jwks().keys[0]).toMatchObject({ kty, alg, use: 'sig', kid: ring.signingKey().kid });
  });
});

describe('a key ring with keys of several algorithms', () => {
  beforeEach(async () => {
    now = Date.UTC(2026, 0, 1);
    store = new MemoryKeyStore();
    ring = await KeyRing.load(store, ringOptions('RS256'));
  });

  it('refuses an algorithm the kid was not made for (PS256 signed with its RSA key)', async () => {
    const { kid, privatePem } = ring.signingKey();
    const token = await forge({ alg: 'PS256', kid }, createPrivateKey(privatePem));
    await expect(verifier().verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('keeps verifying the old algorithm after a rotation to another', async () => {
    const before = await issue();
    const { alg } = await ring.rotate('ES256');
    expect(alg).toBe('ES256');
    await store.activateDue(); // the memory store activates nothing: do what the SQL store does
    store.keys[1]!.state = 'retired';
    store.keys[0]!.state = 'active';
    await ring.refresh();
    const after = await issue();
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).alg).toBe('ES256');
    await expect(verifier().verify(before)).resolves.toMatchObject({ uid: 7 });
    await expect(verifier().verify(after)).resolves.toMatchObject({ uid: 7 });
    expect(ring.algorithms().sort()).toEqual(['ES256', 'RS256']);
  });
});

describe('the issuers a node accepts while the store moves its issuer', () => {
  const NEW = 'https://auth.example.com';
  beforeEach(async () => {
    now = Date.UTC(2026, 0, 1);
    store = new MemoryKeyStore();
    ring = await KeyRing.load(store, ringOptions('ES256'));
  });

  const issuedAs = (iss: string, ttl = 300) =>
    new TokenIssuer(ring, iss, [iss], fixedOrigins(iss, [iss]), clock, new EventHub()).issue(user, ttl);

  it('reads a move it has not seen when a token of the new issuer comes (its copy over a second old)', async () => {
    let record: IssuerRecord = { current: ISS };
    const origins = new AcceptedIssuers(
      { issuer: ISS, audiences: [AUD], audiencesGiven: false },
      async () => record,
      clock,
      record,
    );
    const v = new TokenVerifier(ring, origins, 5, clock);
    await expect(v.verify(await issue())).resolves.toMatchObject({ iss: ISS });
    await expect(v.verify(await issuedAs('https://elsewhere.example'))).rejects.toThrow(InvalidTokenError);
    record = { current: NEW, previous: { issuer: ISS, until: now + 60_000 } };
    now += 1001;
    await expect(v.verify(await issuedAs(NEW))).resolves.toMatchObject({ iss: NEW });
    await expect(v.verify(await issuedAs('https://elsewhere.example'))).rejects.toThrow(InvalidTokenError);
  });

  it('ends the issuer a store moved from when the move ends, for a token verified before too', async () => {
    const record: IssuerRecord = { current: NEW, previous: { issuer: ISS, until: now + 60_000 } };
    const origins = new AcceptedIssuers(
      { issuer: NEW, audiences: [NEW], audiencesGiven: false },
      async () => record,
      clock,
      record,
    );
    const v = new TokenVerifier(ring, origins, 5, clock);
    const old = await issue(3600);
    await expect(v.verify(old)).resolves.toMatchObject({ iss: ISS });
    expect(v.known(old)).toMatchObject({ iss: ISS });
    now += 60_000;
    expect(v.known(old)).toBeUndefined();
    await expect(v.verify(old)).rejects.toThrow(InvalidTokenError);
    await expect(v.verify(await issuedAs(NEW))).resolves.toMatchObject({ iss: NEW });
  });

  it('never waits for a store that does not answer: the copy it read holds', async () => {
    const origins = new AcceptedIssuers(
      { issuer: ISS, audiences: [AUD], audiencesGiven: false },
      () => new Promise<never>(() => {}),
      clock,
      { current: ISS },
    );
    const v = new TokenVerifier(ring, origins, 5, clock);
    now += 5000; // the copy is old, and reading it again never ends
    await expect(v.verify(await issue())).resolves.toMatchObject({ iss: ISS });
    await expect(new TokenIssuer(ring, ISS, [AUD], origins, clock, new EventHub()).issue(user, 60)).resolves.toEqual(
      expect.any(String),
    );
  });
});
