import Type from 'typebox';
import { TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../tokens/claims.js';
import { PASSWORD_MAX_LENGTH } from '../users/password-rules.js';
import { ROLES } from '../users/user.js';
import { USERNAME_MAX_LENGTH } from '../users/username.js';

export const ErrorBody = Type.Object({ error_code: Type.String(), message: Type.String() });

const Ttl = Type.Integer({ minimum: TTL_MIN_SECONDS, maximum: TTL_MAX_SECONDS });

/** Variant A's token request object and Variant B's JWT authorize object in one shape. */
export const AuthorizeBody = Type.Object({
  ttl: Type.Optional(Ttl),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH })),
});

export const TtlBody = Type.Object({ ttl: Type.Optional(Ttl) });

export const AccessToken = Type.Object({ access_token: Type.String() });

export const UserView = Type.Object({
  uid: Type.Integer(),
  username: Type.String(),
  email: Type.Optional(Type.String()),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  status: Type.String(),
  password_issue_date: Type.String(),
  last_login: Type.Union([Type.String(), Type.Null()]),
});

export const UidParams = Type.Object({ uid: Type.String({ pattern: '^[0-9]{1,15}$', description: 'a whole number' }) });

/** Response schemas shared by every route: fast-json-stringify sends nothing else. */
export const ERROR_RESPONSES = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });
const Username = Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH });
const Role = Type.Enum(ROLES);
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
