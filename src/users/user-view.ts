import type { Role } from '../access/management.js';
import { highest } from '../access/management.js';
import type { Policy } from '../policy/policy.js';
import type { AuthMethod, User, UserStatus } from './user.js';
import { userStatus } from './user.js';

/** The user object of the API (the product's) and of `tessera users list --json`. */
export interface UserView {
  uid: number;
  /** "" when the user has none (clients read both as strings). */
  name: string;
  email: string;
  /** The highest management level the user holds, through its own role or its roles. */
  role: Role;
  role_uids: number[];
  auth_method: AuthMethod;
  status: UserStatus;
  password_issue_date: string;
  /** UNIX seconds; absent before the first login. */
  last_login?: number;
  email_alerts: boolean;
  cluster_email_alerts: boolean;
  bdbs_email_alerts?: string[];
  /** Tessera's: the login shown in tokens and logs (the name, else the email). Read-only. */
  username: string;
  /** auth_method "certificate": the subject its client certificate must have. */
  certificate_subject_line?: string;
  /** Tessera's: true when the user has a second factor (an authenticator app, a passkey); absent otherwise. Read-only. */
  mfa_enabled?: true;
}

/** An ISO 8601 time to the second, as the product writes them ("2017-03-07T15:11:08Z"). */
const isoSeconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/** The user object of the API: no password material, ever. */
export function toUserView(user: User, policy: Policy, now: Date): UserView {
  return {
    uid: user.uid,
    name: user.name ?? '',
    email: user.email ?? '',
    role: highest(user.rights),
    role_uids: user.roleUids,
    auth_method: user.authMethod,
    status: userStatus(user, policy, now),
    password_issue_date: isoSeconds(user.passwordIssueDate),
    last_login: user.lastLogin ? Math.floor(user.lastLogin.getTime() / 1000) : undefined,
    email_alerts: user.emailAlerts,
    cluster_email_alerts: user.clusterEmailAlerts,
    bdbs_email_alerts: user.bdbsEmailAlerts ?? undefined,
    username: user.username,
    certificate_subject_line: user.certificateSubjectLine ?? undefined,
    ...(user.mfa && { mfa_enabled: true as const }),
  };
}
