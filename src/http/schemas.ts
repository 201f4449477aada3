import Type from 'typebox';
import { TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../tokens/claims.js';
import { PASSWORD_MAX_LENGTH } from '../users/password-rules.js';
import { ROLES, USER_STATUSES } from '../users/user.js';
import { USERNAME_MAX_LENGTH } from '../users/username.js';

/**
 * An enum of strings that says it is one: without `type`, fast-json-stringify writes the
 * value with JSON.stringify, which slowed the token-protected read.
 */
export function StringEnum<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

export const ErrorBody = Type.Object(
  {
    error_code: Type.String({ description: 'stable snake_case code, for programs', examples: ['invalid_credentials'] }),
    message: Type.String({ description: 'what happened and what to do, for people' }),
  },
  { description: 'Every error answer' },
);

/** OpenAPI security of routes that take the caller's token (or Basic credentials, unless --no-basic-auth). */
export const CALLER: Record<string, string[]>[] = [{ jwt: [] }, { bearer: [] }, { basic: [] }];
/** OpenAPI security of routes anyone may call. */
export const ANYONE: Record<string, string[]>[] = [];

const Ttl = Type.Integer({ minimum: TTL_MIN_SECONDS, maximum: TTL_MAX_SECONDS, description: 'seconds the token lives; 3600 when absent' });

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
      '7.4': { summary: '7.4: no Authorization header', value: { username: 'admin@tessera.local', password: 'correct horse battery staple', ttl: 3600 } },
    },
  },
);

export const TtlBody = Type.Object({ ttl: Type.Optional(Ttl) });

export const AccessToken = Type.Object({ access_token: Type.String({ description: 'a signed JWT' }) });

export const UserView = Type.Object({
  uid: Type.Integer(),
  username: Type.String(),
  email: Type.Optional(Type.String()),
  name: Type.Union([Type.String(), Type.Null()]),
  role: StringEnum(ROLES),
  status: StringEnum(USER_STATUSES),
  password_issue_date: Type.String({ format: 'date-time' }),
  // No `format` inside the union: fast-json-stringify would run the format check on every answer.
  last_login: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 date-time of the last login, or null' }),
});

export const UidParams = Type.Object({ uid: Type.String({ pattern: '^[0-9]{1,15}$', description: 'a whole number' }) });

/** Response schemas shared by every route: fast-json-stringify sends nothing else. */
export const ERROR_RESPONSES = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });
const Username = Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH });
const Role = StringEnum(ROLES);
const Name = Type.Union([Type.String({ maxLength: 256 }), Type.Null()]);

export const CreateUserBody = Type.Object({
  username: Type.Optional(Username),
  email: Type.Optional(Username),
  password: Password,
  role: Role,
  name: Type.Optional(Name),
});

export const UpdateUserBody = Type.Object({
  name: Type.Optional(Name),
  role: Type.Optional(Role),
  password: Type.Optional(Password),
  /** Required when users change their own password. */
  old_password: Type.Optional(Password),
});

export const PasswordBody = Type.Object({
  username: Type.Optional(Username),
  old_password: Type.Optional(Password),
  new_password: Password,
});

export const DeletePasswordBody = Type.Object({
  username: Type.Optional(Username),
  old_password: Password,
});

export const Ok = Type.Object({});
