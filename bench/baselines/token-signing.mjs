// Signs and verifies tokens with fast-jwt and node:crypto, as Tessera does, for each
// algorithm a key may have; prints {alg: {signPerSec, verifyPerSec}} as JSON.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';

const seconds = Number(process.argv[2] ?? 1);
const pairs = {
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  EdDSA: generateKeyPairSync('ed25519'),
  RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
};
const pem = (k, type) => k.export({ format: 'pem', type });
const rate = (fn) => {
  for (let i = 0; i < 200; i++) fn(); // warm-up
  let n = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) for (let i = 0; i < 50; i++, n++) fn();
  return n / seconds;
};
const result = {};
for (const [alg, { publicKey, privateKey }] of Object.entries(pairs)) {
  const sign = createSigner({ key: pem(privateKey, 'pkcs8'), algorithm: alg, kid: 'k' });
  const verify = createVerifier({ key: pem(publicKey, 'spki'), algorithms: [alg], cache: false });
  const now = Math.floor(Date.now() / 1000);
  const claims = () => ({
    iss: 'https://t',
    aud: 'https://t',
    sub: '1',
    uid: 1,
    username: 'u',
    roles: ['admin'],
    ver: 0,
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
  });
  const token = sign(claims());
  result[alg] = { signPerSec: rate(() => sign(claims())), verifyPerSec: rate(() => verify(token)) };
}
console.log(JSON.stringify(result));
