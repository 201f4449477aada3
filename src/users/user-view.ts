import type { Policy } from '../policy/policy.js';
import { type Role, type User, type UserStatus, userStatus } from './user.js';

/** The user object of the API and of `tessera users list --json`. */
export interface UserView {
  uid: number;
  username: string;
  email?: string;
  name: string | null;
  role: Role;
  status: UserStatus;
  password_issue_date: string;
  last_login: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The user object of the API: no password material, ever. One shape for every user (an
 * absent email is undefined, which serializing leaves out), as the hot read path likes.
 */
export function toUserView(user: User, policy: Policy, now: Date): UserView {
  return {
    uid: user.uid,
    username: user.username,
    email: EMAIL.test(user.username) ? user.username : undefined,
    name: user.name,
    role: user.role,
    status: userStatus(user, policy, now),
    password_issue_date: user.passwordIssueDate.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
  };
}
