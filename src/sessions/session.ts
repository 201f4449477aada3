/** A login's life: its tokens (the first and each refresh) carry its id as `sid`. */
export interface Session {
  id: string;
  uid: number;
  /** The way in that started it: local, ldap, certificate, sso. */
  realm: string;
  ip: string | null;
  userAgent: string | null;
  /** The web console's: idled out by the server after cm_session_timeout_minutes. */
  console: boolean;
  startedAt: Date;
  refreshedAt: Date;
  lastSeenAt: Date;
  /** No token of it lives past it: the login + session_max_lifetime_minutes (or the login's own ttl, when longer). */
  endsAt: Date;
  endedAt: Date | null;
  /** The API key its login presented: its tokens carry that key's rights, and end with it. */
  apiKeyId: string | null;
}

/** A live session with whose it is: the list of every user's sessions. */
export interface SessionOfUser extends Session {
  name: string | null;
  email: string | null;
}

/** A session as the API shows it. */
export interface SessionView {
  sid: string;
  uid: number;
  realm: string;
  client_ip: string;
  user_agent: string;
  console: boolean;
  started: string;
  last_refreshed: string;
  last_seen: string;
  expires: string;
  /** Whether the request that lists it carries one of its tokens. */
  current: boolean;
  /** The API key its login presented, when one did. */
  api_key_id?: string;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function toSessionView(s: Session, currentSid?: string): SessionView {
  return {
    sid: s.id,
    uid: s.uid,
    realm: s.realm,
    client_ip: s.ip ?? '',
    user_agent: s.userAgent ?? '',
    console: s.console,
    started: iso(s.startedAt),
    last_refreshed: iso(s.refreshedAt),
    last_seen: iso(s.lastSeenAt),
    expires: iso(s.endsAt),
    current: s.id === currentSid,
    ...(s.apiKeyId !== null && { api_key_id: s.apiKeyId }),
  };
}

/** A session in the list of every user's: the per-user fields, and whose it is ("" for a name or an email the user has not). */
export function toSessionOfUserView(
  s: SessionOfUser,
  currentSid?: string,
): SessionView & { name: string; email: string } {
  return { ...toSessionView(s, currentSid), name: s.name ?? '', email: s.email ?? '' };
}
