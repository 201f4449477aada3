import { generateKeyPair as generate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { SIGNING_ALGS } from '../config/settings.js';

const generateAsync = promisify(generate);

/**
 * The algorithms a signing key may have (named where the configuration reads them). ES256 by
 * default: every common verifier takes it (RS256-only loaders aside) and it signs fast.
 * RS256 for RSA-only verifiers; EdDSA for the stores made before ES256 was the default.
 */
export { SIGNING_ALGS } from '../config/settings.js';
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export function isSigningAlg(value: unknown): value is SigningAlg {
  return (SIGNING_ALGS as readonly unknown[]).includes(value);
}

/** A new key pair of the algorithm (P-256, RSA 2048, or Ed25519), made off the event loop. */
export function generateKeyPair(alg: SigningAlg): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  switch (alg) {
    case 'ES256':
      return generateAsync('ec', { namedCurve: 'P-256' });
    case 'RS256':
      return generateAsync('rsa', { modulusLength: 2048 });
    case 'EdDSA':
      return generateAsync('ed25519');
  }
}
