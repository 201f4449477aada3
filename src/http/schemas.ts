import Type from 'typebox';
import { ResourceScopes } from '../access/resource-scopes.js';
import { ROLE_NAME_MAX_LENGTH } from '../roles/role.js';
import { StringEnum } from '../schema/string-enum.js';
import { TTL_DEFAULT_SECONDS, TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../tokens/claims.js';
import { PASSWORD_MAX_LENGTH } from '../users/password-rules.js';
import { AUTH_METHODS, USER_STATUSES } from '../users/user.js';
import { Password, PasswordHashMethod, Role } from '../users/user-write-schemas.js';
import { USERNAME_MAX_LENGTH } from '../users/username.js';

export { StringEnum } from '../schema/string-enum.js';

/** OpenAPI security of routes that take the caller's token (or Basic credentials, unless the cluster turned them off). */
export const CALLER: Record<string, string[]>[] = [{ jwt: [] }, { bearer: [] }, { basic: [] }];
/** OpenAPI security of routes anyone may call. */
export const ANYONE: Record<string, string[]>[] = [];

const Ttl = Type.Integer({
  minimum: TTL_MIN_SECONDS,
  maximum: TTL_MAX_SECONDS,
  description: `seconds the token lives; ${TTL_DEFAULT_SECONDS} when absent`,
});

/** Variant A's token request object and Variant B's JWT authorize object in one shape. */
export const AuthorizeBody = Type.Object(
  {
    ttl: Type.Optional(Ttl),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH })),
  },
  {
    description:
      '7.22: credentials in "Authorization: Basic", the body optional ({"ttl"} or nothing). ' +
      '7.4: no Authorization header, {"username", "password"} and an optional "ttl" in the body.',
    // Named examples of the OpenAPI media type (@fastify/swagger moves them there).
    'x-examples': {
      '7.22': { summary: '7.22: with "Authorization: Basic …"; the body may also be empty', value: { ttl: 3600 } },
      '7.4': {
        summary: '7.4: no Authorization header',
        value: { username: 'admin@tessera.local', password: 'correct horse battery staple', ttl: 3600 },
      },
    },
  },
);

export const TtlBody = Type.Object({ ttl: Type.Optional(Ttl) }, { additionalProperties: false });

export const AccessToken = Type.Object({ access_token: Type.String({ description: 'a signed JWT' }) });

/** The product's user object (objects/user.md), with Tessera's read-only `username`. */
export const UserView = Type.Object({
  uid: Type.Integer(),
  name: Type.String({ description: 'a login, unique regardless of case; "" when the user has none' }),
  email: Type.String({ description: 'a login too, unique regardless of case; "" when the user has none' }),
  role: Role,
  role_uids: Type.Array(Type.Integer()),
  auth_method: StringEnum(AUTH_METHODS),
  status: StringEnum(USER_STATUSES),
  password_issue_date: Type.String({ description: 'ISO 8601, to the second (read-only)' }),
  last_login: Type.Optional(
    Type.Integer({ description: 'UNIX seconds of the last login; absent before the first (read-only)' }),
  ),
  email_alerts: Type.Boolean(),
  cluster_email_alerts: Type.Boolean(),
  bdbs_email_alerts: Type.Optional(Type.Array(Type.String())),
  username: Type.String({
    description: "Tessera's: the login that tokens and logs show — the name, else the email (read-only)",
  }),
  certificate_subject_line: Type.Optional(
    Type.String({ description: 'auth_method "certificate": the subject (RFC 2253) its client certificate must have' }),
  ),
  mfa_enabled: Type.Optional(
    Type.Boolean({
      description:
        "Tessera's: true when the user has a second factor (an authenticator app, a passkey); absent otherwise (read-only)",
    }),
  ),
});

/** A uid as a path writes it: a whole number the stores' integer column holds (up to 2147483647; PostgreSQL refuses a larger one). */
const UID_PATTERN =
  '^0*(?:[0-9]{1,9}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])$';
export const UidParams = Type.Object({
  uid: Type.String({ pattern: UID_PATTERN, maxLength: 15, description: 'a whole number up to 2147483647' }),
});

const Username = Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH });
/** `?dry_run` in every form the product's docs write it (bare, `=1`, `=true`): check everything, change nothing. */
export const DryRunQuery = Type.Object(
  { dry_run: Type.Optional(StringEnum(['', 'true', '1', 'false', '0'] as const)) },
  { additionalProperties: false },
);

export function isDryRun(query: { dry_run?: string }): boolean {
  return query.dry_run !== undefined && query.dry_run !== 'false' && query.dry_run !== '0';
}

export const RoleView = Type.Object({
  uid: Type.Integer(),
  name: Type.String(),
  management: Role,
  resources: Type.Optional(ResourceScopes),
  mfa_required: Type.Optional(
    Type.Boolean({
      description:
        "Tessera's: a holder must have a second factor (logins without one get a token for enrolling only); absent: off",
    }),
  ),
});
const MfaRequired = Type.Optional(
  Type.Boolean({ description: "Tessera's: a holder must have a second factor (default false)" }),
);
const RoleFields = {
  name: Type.String({ minLength: 1, maxLength: ROLE_NAME_MAX_LENGTH }),
  management: Role,
  resources: Type.Optional(ResourceScopes),
  mfa_required: MfaRequired,
};
export const CreateRoleBody = Type.Object(
  {
    ...RoleFields,
    uid: Type.Optional(
      Type.Integer({
        minimum: 101,
        maximum: 1_000_000_000,
        description:
          'the uid to give the role (the product, 8.0): 101 to 1000000000 (1 to 100 are kept for built-in roles); 409 uid_already_exists when taken',
      }),
    ),
  },
  { additionalProperties: false },
);
export const UpdateRoleBody = Type.Object(
  {
    name: Type.Optional(RoleFields.name),
    management: Type.Optional(Role),
    resources: Type.Optional(ResourceScopes),
    mfa_required: MfaRequired,
    uid: Type.Optional(
      Type.Integer({
        readOnly: true,
        description: 'read-only: a role read and sent back whole keeps its uid (no change); another uid is refused',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PasswordBody = Type.Object(
  {
    username: Type.Optional(Username),
    old_password: Type.Optional(Password),
    new_password: Password,
    password_hash_method: PasswordHashMethod,
  },
  { additionalProperties: false },
);

export const DeletePasswordBody = Type.Object(
  {
    username: Type.Optional(Username),
    old_password: Password,
  },
  { additionalProperties: false },
);

export const Ok = Type.Object({});
