export const ROLES = [
  'admin',
  'user_manager',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  'none',
] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** A user as the domain sees it. Password material is never part of it. */
export interface User {
  uid: number;
  username: string;
  name: string | null;
  role: Role;
  passwordIssueDate: Date;
  /** When set and reached, the password has expired (forced by an administrator). */
  passwordExpiresAt: Date | null;
  createdAt: Date;
  lastLogin: Date | null;
}

export type UserStatus = 'active' | 'password_expired';

export function isPasswordExpired(user: User, now: Date): boolean {
  return user.passwordExpiresAt !== null && user.passwordExpiresAt.getTime() <= now.getTime();
}

export function userStatus(user: User, now: Date): UserStatus {
  return isPasswordExpired(user, now) ? 'password_expired' : 'active';
}
