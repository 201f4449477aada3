import Type from 'typebox';
import { ROLES } from '../access/management.js';
import { StringEnum } from '../schema/string-enum.js';
import { PASSWORD_MAX_LENGTH } from './password-rules.js';
import { AUTH_METHODS, USER_STATUSES, type UserStatus } from './user.js';
import { USERNAME_MAX_LENGTH } from './username.js';

/*
 * The product's user object as a client writes it (POST and PUT /v1/users), and as an
 * import reads each user of a file: the request schemas, and the fields' own words.
 */

/** A management level. */
export const Role = StringEnum(ROLES);
const RoleUids = Type.Array(Type.Integer({ minimum: 1 }), {
  maxItems: 100,
  description: 'uids of roles (GET /v1/roles)',
});
const BdbsEmailAlerts = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 10_000,
  description: 'database uids as strings, or ["all"]',
});

export const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });
/** The product's pre-hashed password (1, or "1" as objects/user.md writes it). */
export const PasswordHashMethod = Type.Optional(
  Type.Unsafe<1 | '1'>({
    enum: [1, '1'],
    description:
      'the password is pre-hashed as the product exports it: the hex SHA-256 of "username:clustername:password" (username: the user\'s name or email; clustername: GET /v1/cluster\'s name). Kept until the first login with it, which stores argon2id instead. The password rules cannot be checked on it; by who manages users only',
  }),
);
/** A login or null (one JSON Schema type list, so that a refusal names the length, not "must be null"); `minLength` 0: "" means none. */
const Login = (what: string, minLength = 1) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    minLength,
    maxLength: USERNAME_MAX_LENGTH,
    description: what,
  });

/** The writable fields of a user object; read-only ones (uid, status, dates) are refused by name (on a PUT: when they differ). */
const UserFields = {
  name: Type.Optional(Login('a login, unique regardless of case')),
  email: Type.Optional(Login('a login too, an address, unique regardless of case; "" or null: none', 0)),
  role: Type.Optional(Role),
  role_uids: Type.Optional(RoleUids),
  auth_method: Type.Optional(StringEnum(AUTH_METHODS)),
  email_alerts: Type.Optional(Type.Boolean()),
  cluster_email_alerts: Type.Optional(Type.Boolean()),
  bdbs_email_alerts: Type.Optional(Type.Union([BdbsEmailAlerts, Type.Null()])),
  certificate_subject_line: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'auth_method "certificate": the client certificate\'s subject, RFC 2253, CN first ("CN=ops-bot,OU=automation,O=Example")',
    }),
  ),
};

export const CreateUserBody = Type.Object(
  {
    ...UserFields,
    password: Type.Optional(Password),
    password_hash_method: PasswordHashMethod,
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: USERNAME_MAX_LENGTH,
        description: "Tessera's shorthand: an address sets email, anything else name",
      }),
    ),
  },
  { additionalProperties: false },
);

/** A field the server sets, in a user sent back as GET answers it: its value then is no change; another value is refused. */
const READ_ONLY = { readOnly: true, description: 'read-only: as GET answers it, no change; another value is refused' };

/** The server's fields of the user object (GET /v1/users/{uid}), which a client that reads, changes and writes back sends too. */
export const READ_ONLY_USER_FIELDS = [
  'uid',
  'status',
  'password_issue_date',
  'last_login',
  'username',
  'mfa_enabled',
] as const;

export const UpdateUserBody = Type.Object(
  {
    ...UserFields,
    // "" is how GET answers a user without a name: sent back, it is no change (any other user needs a name there).
    name: Type.Optional(
      Login('a login, unique regardless of case ("" as GET answers a user without one: no change)', 0),
    ),
    password: Type.Optional(Password),
    password_hash_method: PasswordHashMethod,
    /** Required when users change their own password with a token. */
    old_password: Type.Optional(Password),
    uid: Type.Optional(Type.Integer(READ_ONLY)),
    status: Type.Optional(Type.Unsafe<UserStatus>({ type: 'string', enum: [...USER_STATUSES], ...READ_ONLY })),
    password_issue_date: Type.Optional(Type.String({ maxLength: 64, ...READ_ONLY })),
    last_login: Type.Optional(Type.Integer(READ_ONLY)),
    username: Type.Optional(Type.String({ maxLength: USERNAME_MAX_LENGTH, ...READ_ONLY })),
    mfa_enabled: Type.Optional(Type.Boolean(READ_ONLY)),
  },
  { additionalProperties: false },
);
