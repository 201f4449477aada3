import Type from 'typebox';
import type { ErrorCode } from '../../errors.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, UidParams } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const RoleUids = Type.Array(Type.Integer({ minimum: 1 }), {
  maxItems: 100,
  description: "the roles the key acts with: a subset of its owner's (absent: every role of its owner)",
});
const AllowedCidrs = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 50,
  description: 'the client addresses it is taken from (10.0.0.0/8, 2001:db8::/32, or one address); absent: any',
});
const ExpiresAt = Type.String({
  minLength: 10,
  maxLength: 40,
  description: 'ISO 8601 (no zone: UTC); within api_key_max_lifetime_days of now',
});
const Name = Type.String({ minLength: 1, maxLength: 128, description: 'what it is for ("nightly backup")' });

const ApiKeyView = Type.Object({
  key_id: Type.String({ description: 'its public id: never part of the key' }),
  uid: Type.Integer({ description: 'its owner' }),
  name: Type.String(),
  prefix: Type.String({ description: "the key's first 12 characters, to tell it apart (tsr_ and 8)" }),
  created: Type.String({ description: 'ISO 8601' }),
  expires: Type.String({ description: 'ISO 8601: refused from then on (api_key_expired)' }),
  role_uids: Type.Optional(RoleUids),
  allowed_cidrs: Type.Optional(AllowedCidrs),
  last_used: Type.Optional(
    Type.String({ description: 'its last use, ISO 8601, within a minute (absent: never used)' }),
  ),
});
const NewKey = Type.Object({
  ...ApiKeyView.properties,
  key: Type.String({
    description:
      'the key itself (tsr_…): shown this once, never again. Present it as "Authorization: Bearer tsr_…", or as the password of its owner in Basic credentials',
  }),
});
const KeyParams = Type.Object({
  ...UidParams.properties,
  key_id: Type.String({ pattern: '^key_[0-9A-Za-z]{17}$', description: 'a key_id (key_…)' }),
});
const ERRORS: ErrorCode[] = ['forbidden', 'unauthorized_action', 'user_not_found', 'api_key_not_found'];

/**
 * A user's API keys (Tessera's; in the product's style): secrets for automation that work
 * wherever a password does, each expiring, narrowed to some of its owner's roles, and taken
 * from some addresses. The user for itself, or who may manage it (update_user; an admin's
 * keys by an admin); who may see it lists them. The key itself is answered once, when made.
 */
export function apiKeysRoutes(app: TesseraApp, { apiKeys }: Pick<HttpServices, 'apiKeys'>): void {
  const doc = { tags: ['api keys'], security: CALLER };
  app.post(
    '/v1/users/:uid/api_keys',
    {
      config: { access: 'caller', errors: [...ERRORS, 'too_many_api_keys'] },
      schema: {
        ...doc,
        summary:
          "Make an API key: the key is in this answer only. Expiry required (expires_at or ttl_days); role_uids a subset of the owner's (yourself, or update_user)",
        params: UidParams,
        body: Type.Object(
          {
            name: Name,
            expires_at: Type.Optional(ExpiresAt),
            ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'days from now' })),
            role_uids: Type.Optional(RoleUids),
            allowed_cidrs: Type.Optional(AllowedCidrs),
          },
          { additionalProperties: false },
        ),
        response: { 200: NewKey },
      },
    },
    (request) => apiKeys.create(callerOf(request), Number(request.params.uid), request.body, contextOf(request)),
  );
  app.get(
    '/v1/users/:uid/api_keys',
    {
      config: { access: 'caller', errors: ERRORS },
      schema: {
        ...doc,
        summary: "A user's API keys, oldest first, never a key (yourself, or view_user_info)",
        params: UidParams,
        response: { 200: Type.Array(ApiKeyView) },
      },
    },
    (request) => apiKeys.list(callerOf(request), Number(request.params.uid)),
  );
  app.get(
    '/v1/users/:uid/api_keys/:key_id',
    {
      config: { access: 'caller', errors: ERRORS },
      schema: {
        ...doc,
        summary: 'One API key, never the key (yourself, or view_user_info)',
        params: KeyParams,
        response: { 200: ApiKeyView },
      },
    },
    (request) => apiKeys.get(callerOf(request), Number(request.params.uid), request.params.key_id),
  );
  app.put(
    '/v1/users/:uid/api_keys/:key_id',
    {
      config: { access: 'caller', errors: ERRORS },
      schema: {
        ...doc,
        summary:
          "Change a key's name, expiry (within api_key_max_lifetime_days of now) or addresses (null: any); its roles stay (make a new key) (yourself, or update_user)",
        params: KeyParams,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            expires_at: Type.Optional(ExpiresAt),
            allowed_cidrs: Type.Optional(Type.Union([AllowedCidrs, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: ApiKeyView },
      },
    },
    (request) =>
      apiKeys.update(
        callerOf(request),
        Number(request.params.uid),
        request.params.key_id,
        request.body,
        contextOf(request),
      ),
  );
  app.delete(
    '/v1/users/:uid/api_keys/:key_id',
    {
      config: { access: 'caller', errors: ERRORS },
      schema: {
        ...doc,
        summary:
          'Revoke a key: refused here at once and on every node within a second; the tokens issued for it end (yourself, or update_user)',
        params: KeyParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await apiKeys.revoke(callerOf(request), Number(request.params.uid), request.params.key_id, contextOf(request));
      return {};
    },
  );
}
