/**
 * The verifier kit for Node services that accept Tessera tokens, with no server code:
 * `tessera/verify` (this), `tessera/verify/fastify` and `tessera/verify/express`.
 */

export { createIntrospector, type IntrospectorOptions } from './introspector.js';
export { hasRoleOn, type Resource, type ResourceScope, rolesOn, type ScopedClaims } from './resources.js';
export type { FeedCredentials } from './revocation-feed.js';
export {
  createVerifier,
  type TesseraClaims,
  TokenRejectedError,
  type Verifier,
  type VerifierOptions,
} from './verifier.js';
