import type { Generated } from 'kysely';

/** Table shapes as the database holds them. Dates are ISO-8601 UTC strings. */
export interface UsersTable {
  uid: Generated<number>;
  /** The user's first login: the name, or the email when there is none (kept by the store). */
  username: string;
  /** Its NFKC + case-folded key (unique). */
  username_key: string;
  /** The product's `name`: a login, unique by its key. */
  name: string | null;
  name_key: string | null;
  /** The product's `email`: a login too, unique by its key. */
  email: string | null;
  email_key: string | null;
  auth_method: Generated<string>;
  email_alerts: Generated<number>;
  cluster_email_alerts: Generated<number>;
  /** JSON array of database uids (strings, or ["all"]), or null. */
  bdbs_email_alerts: string | null;
  password_issue_date: string;
  /** Set when an administrator forces the password to expire. */
  password_expires_at: string | null;
  /** Locked by the lockout policy until then; LOCKED_UNTIL_UNLOCKED for "until an admin unlocks". */
  locked_until: string | null;
  /** Failures counted before this moment no longer count (an unlock or a password reset). */
  lock_reset_at: string | null;
  /** Raised on every change that must end the user's tokens; tokens carry the one they were issued at. */
  token_epoch: Generated<number>;
  created_at: string;
  last_login: string | null;
  /** 'local', or 'ldap' for a user of the directory (no password here). */
  realm: Generated<string>;
  /** For auth_method 'certificate': the RFC 2253 subject its client certificate must have (unique). */
  certificate_subject_line: string | null;
  /** A directory user: its entry's DN as normalizeDn writes it (unique); set at its first login. */
  directory_key: string | null;
}

export interface RolesTable {
  uid: Generated<number>;
  name: string;
  name_key: string;
  management: string;
  /** JSON of the role's scopes (`[{"type": "db", "uids": ["1"]}]`); null: none, every database. */
  resources: string | null;
  /** 1: a holder must have a second factor (Tessera's field); 0 for every role by default. */
  mfa_required: Generated<number>;
}

export interface UserRolesTable {
  uid: number;
  role_uid: number;
}

export interface UserPasswordsTable {
  id: Generated<number>;
  uid: number;
  hash: string;
  created_at: string;
}

export interface LdapMappingsTable {
  uid: Generated<number>;
  name: string;
  name_key: string;
  /** The directory group's DN, as given. */
  dn: string;
  /** JSON array of role uids. */
  role_uids: string;
  email: string | null;
  email_alerts: Generated<number>;
  cluster_email_alerts: Generated<number>;
  /** JSON array of database uids, or null. */
  bdbs_email_alerts: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Revocation events, read by every process: a user's tokens (uid) or one token (jti). */
export interface RevocationsTable {
  id: Generated<number>;
  uid: number | null;
  jti: string | null;
  /** For a jti or a sid: when its tokens expire anyway, after which the row can go. */
  expires_at: string | null;
  created_at: string;
  /** A session ended: every token that carries this sid. */
  sid: string | null;
}

export interface SessionsTable {
  /** The sid its tokens carry: 128 random bits. */
  id: string;
  uid: number;
  realm: string;
  ip: string | null;
  user_agent: string | null;
  /** 1: the web console's (idled out after cm_session_timeout_minutes), 0: anyone else's. */
  console: number;
  started_at: string;
  refreshed_at: string;
  /** The last request with one of its tokens, written at most every SEEN_WRITE_MS a node. */
  last_seen_at: string;
  /** The absolute end: no token of it lives past it. */
  ends_at: string;
  ended_at: string | null;
  /** The API key its login presented (its tokens carry the key's rights): revoking the key ends it. */
  api_key_id: string | null;
}

export interface ApiKeysTable {
  /** The public id (`key_id`): never part of the secret. */
  id: string;
  uid: number;
  name: string;
  /** SHA-256 of the whole key, hex: the key itself is never stored. */
  hash: string;
  /** The key's first characters, to tell keys apart in a list. */
  prefix: string;
  /** JSON array of role uids, a subset of the owner's; null: every role of the owner. */
  role_uids: string | null;
  /** JSON array of CIDRs the key is taken from; null: any address. */
  allowed_cidrs: string | null;
  created_at: string;
  expires_at: string;
  /** Written at most once a minute a key a node. */
  last_used_at: string | null;
}

export interface MfaFactorsTable {
  /** The public id (`factor_id`). */
  id: string;
  uid: number;
  /** 'totp' or 'webauthn'. */
  type: string;
  name: string;
  /** 0 while a TOTP secret waits for its first code (it expires then); 1 once it is a factor. */
  confirmed: Generated<number>;
  /** TOTP: the base32 secret, sealed under the master key (bound to the factor's id). */
  secret: string | null;
  /** TOTP: the last time step accepted; a code of that step or an earlier one is refused (one use, every node). */
  last_step: number | string | null;
  /** WebAuthn: the credential's id (base64url). */
  credential_id: string | null;
  /** WebAuthn: the COSE public key (base64url). */
  public_key: string | null;
  counter: Generated<number | string>;
  /** WebAuthn: JSON array of the authenticator's transports. */
  transports: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface MfaRecoveryCodesTable {
  uid: number;
  /** SHA-256 of the code as normalised, hex: the code itself is never stored. */
  hash: string;
}

export interface MfaChallengesTable {
  /** SHA-256 of the mfa_token (a login's), or `register:<uid>` (a passkey's registration). */
  id: string;
  uid: number;
  /** 'login' or 'register'. */
  purpose: string;
  /** The client the challenge was given to (its address): taken from that one only. */
  client: string;
  /** JSON: what the second step needs (the login's ttl, realm and console flag; a WebAuthn challenge). */
  data: string;
  attempts: Generated<number>;
  expires_at: string;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  private_jwk: string;
  state: string;
  created_at: string;
  /** For a staged key: when it starts to sign. */
  activate_at: string | null;
  /** For a retired key: when it stopped signing. */
  retired_at: string | null;
}

export interface SamlRequestsTable {
  id: string;
  /** The request's IssueInstant, as node-saml compares it. */
  issued_at: string;
  /** SHA-256 of the nonce in the cookie of the browser that asked (the sign-in is handed to that browser only). */
  browser_hash: string | null;
  expires_at: string;
}

export interface SamlAssertionsTable {
  id: string;
  expires_at: string;
}

export interface SsoSignInsTable {
  /** SHA-256 of the one-time code (the code itself is only in the browser's cookie). */
  code_hash: string;
  uid: number;
  token_epoch: number;
  /** The browser that asked for the answer; null: an answer nobody asked for (IdP-initiated), taken once confirmed. */
  browser_hash: string | null;
  expires_at: string;
}

export interface SsoSessionsTable {
  uid: number;
  /** JSON: what a logout request names (NameID, its format and qualifiers, the session index). */
  session: string;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  user_passwords: UserPasswordsTable;
  settings: SettingsTable;
  revocations: RevocationsTable;
  signing_keys: SigningKeysTable;
  ldap_mappings: LdapMappingsTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
  sso_sign_ins: SsoSignInsTable;
  sso_sessions: SsoSessionsTable;
  sessions: SessionsTable;
  event_log: EventLogTable;
  api_keys: ApiKeysTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  siem_outbox: SiemOutboxTable;
  siem_sinks: SiemSinksTable;
}

export interface EventLogTable {
  id: Generated<number>;
  /** ISO 8601 with milliseconds. */
  time: string;
  type: string;
  severity: string;
  /** The user the event is about, and the one who acted: what the log is searched by. */
  uid: number | null;
  actor_uid: number | null;
  /** The event's fields (JSON): never a secret, as the audit record has no place for one. */
  record: string;
}

/** An event waiting for one sink (JSON: a SiemEvent); deleted once the sink took it. */
export interface SiemOutboxTable {
  id: Generated<number>;
  sink: string;
  event: string;
  /** A change's event (written in its transaction), else a sign-in's or a node's own. */
  change: 0 | 1;
  /** ms since the epoch. */
  created_at: number;
}

/** How a sink's delivery goes, shared by the nodes: who holds it until when (ms), its failures and counts. */
export interface SiemSinksTable {
  sink: string;
  node: string;
  lease_until: number;
  failing_since: number | null;
  last_error: string | null;
  last_delivered_at: number | null;
  delivered: Generated<number>;
  failed: Generated<number>;
  dropped: Generated<number>;
}
