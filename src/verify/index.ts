/**
 * The verifier kit for Node services that accept Tessera tokens, with no server code:
 * `tessera/verify` (this), `tessera/verify/fastify` and `tessera/verify/express`.
 */
export { createVerifier, TokenRejectedError, type TesseraClaims, type Verifier, type VerifierOptions } from './verifier.js';
export type { FeedCredentials } from './revocation-feed.js';
export { createIntrospector, type IntrospectorOptions } from './introspector.js';
