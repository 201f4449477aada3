import Type, { type Static } from 'typebox';

/** The cluster policy (GET/PUT /v1/cluster/policy): password rules and lockout. */
export const PolicySchema = Type.Object(
  {
    password_min_length: Type.Integer({ minimum: 8, maximum: 256 }),
    password_complexity: Type.Boolean(),
    /** Days; 0 = passwords never expire. */
    password_expiration_duration: Type.Integer({ minimum: 0, maximum: 3650 }),
    /** Failed attempts that lock a user; 0 disables lockout. */
    login_lockout_threshold: Type.Integer({ minimum: 0, maximum: 1000 }),
    /** Seconds after the first failure at which the failure counter starts again. */
    login_lockout_counter_reset_after: Type.Integer({ minimum: 1, maximum: 86_400 }),
    /** Seconds a lock lasts; 0 = until an admin unlocks. */
    login_lockout_duration: Type.Integer({ minimum: 0, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

export type Policy = Readonly<Static<typeof PolicySchema>>;

/** Every field optional: PUT changes what it names and keeps the rest. */
export const PolicyPatchSchema = Type.Partial(PolicySchema, { additionalProperties: false });

export const DEFAULT_POLICY: Policy = Object.freeze({
  password_min_length: 8,
  password_complexity: false,
  password_expiration_duration: 0,
  login_lockout_threshold: 5,
  login_lockout_counter_reset_after: 900,
  login_lockout_duration: 1800,
});
