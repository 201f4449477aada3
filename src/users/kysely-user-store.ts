import { type Expression, type ExpressionBuilder, type Selectable, type SqlBool, sql, type Transaction } from 'kysely';
import { isRole, type Role, rightsFrom } from '../access/management.js';
import { mergedScopes, type ResourceScope } from '../access/resource-scopes.js';
import {
  EmailAlreadyExistsError,
  LastAdminError,
  UnauthorizedActionError,
  UserAlreadyExistsError,
  UserNotFoundError,
} from '../errors.js';
import type { EventHub } from '../events.js';
import type { Db } from '../store/database.js';
import { precompiled } from '../store/precompiled.js';
import type { Database, UsersTable } from '../store/schema.js';
import { serialized } from '../store/serialized.js';
import { AUTH_METHODS, type AuthMethod, realmOf, sameRoles, type User } from './user.js';
import type {
  CredentialStore,
  DirectoryAccount,
  NewPasswordHash,
  NewUser,
  ProfileChanges,
  UserGuard,
  UserProfile,
  UserStore,
} from './user-store.js';
import { usernameKey } from './username.js';

const COLUMNS = [
  'uid',
  'name',
  'email',
  'auth_method',
  'email_alerts',
  'cluster_email_alerts',
  'bdbs_email_alerts',
  'password_issue_date',
  'password_expires_at',
  'locked_until',
  'lock_reset_at',
  'token_epoch',
  'created_at',
  'last_login',
  'realm',
  'certificate_subject_line',
  'name_key',
  'email_key',
  'directory_key',
] as const;

// The user's roles and what each grants in the same row (string_agg: SQLite ≥ 3.44 and PostgreSQL): a role's
// level, `!` when it requires a second factor, and `=` and its resources' JSON when it has some
// ("db_viewer!=[{…}]"), one role from the next by ';'.
const ROLE_UIDS = sql<
  string | null
>`(select string_agg(cast(ur.role_uid as text), ',') from user_roles ur where ur.uid = users.uid)`.as('role_uids');
const ROLE_GRANTS = sql<
  string | null
>`(select string_agg(r.management || case when r.mfa_required = 1 then '!' else '' end || coalesce('=' || r.resources, ''), ';') from user_roles ur join roles r on r.uid = ur.role_uid where ur.uid = users.uid)`.as(
  'role_grants',
);

// Whether the user has a second factor.
const MFA = sql<
  number | boolean | null
>`(select 1 from mfa_factors f where f.uid = users.uid and f.confirmed = 1 limit 1)`.as('mfa');
const DERIVED = [ROLE_UIDS, ROLE_GRANTS, MFA] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof COLUMNS)[number]> & {
  role_uids: string | null;
  role_grants: string | null;
  mfa: number | boolean | null;
};
type Executor = Db | Transaction<Database>;

const date = (iso: string | null) => (iso ? new Date(iso) : null);
const role = (value: string): Role => (isRole(value) ? value : 'none');
const authMethod = (value: string): AuthMethod => AUTH_METHODS.find((m) => m === value) ?? 'regular';

/** What each of the user's roles grants: its level, its scopes, and whether it requires a second factor. */
function grantsOf(column: string | null): { management: Role; resources: ResourceScope[]; mfa: boolean }[] {
  if (!column) return [];
  return column.split(';').map((grant) => {
    const at = grant.indexOf('=');
    const level = at < 0 ? grant : grant.slice(0, at);
    const mfa = level.endsWith('!');
    return {
      management: role(mfa ? level.slice(0, -1) : level),
      resources: at < 0 ? [] : (JSON.parse(grant.slice(at + 1)) as ResourceScope[]),
      mfa,
    };
  });
}

function toUser(row: UserRow): User {
  const grants = grantsOf(row.role_grants);
  return {
    uid: row.uid,
    username: row.name ?? row.email ?? '',
    name: row.name,
    email: row.email,
    logins: [row.name_key, row.email_key].filter((k): k is string => k !== null),
    roleUids: row.role_uids
      ? row.role_uids
          .split(',')
          .map(Number)
          .sort((a, b) => a - b)
      : [],
    rights: rightsFrom(grants.map((g) => g.management)),
    resources: mergedScopes(grants),
    authMethod: authMethod(row.auth_method),
    emailAlerts: Boolean(row.email_alerts),
    clusterEmailAlerts: Boolean(row.cluster_email_alerts),
    bdbsEmailAlerts: row.bdbs_email_alerts === null ? null : (JSON.parse(row.bdbs_email_alerts) as string[]),
    passwordIssueDate: new Date(row.password_issue_date),
    passwordExpiresAt: date(row.password_expires_at),
    lockedUntil: date(row.locked_until),
    lockResetAt: date(row.lock_reset_at),
    tokenEpoch: Number(row.token_epoch),
    createdAt: new Date(row.created_at),
    lastLogin: date(row.last_login),
    realm: realmOf(row.realm === 'ldap', authMethod(row.auth_method)),
    certificateSubjectLine: row.certificate_subject_line,
    directoryKey: row.directory_key,
    mfa: row.mfa !== null && Boolean(Number(row.mfa)),
    mfaRequired: grants.some((g) => g.mfa),
  };
}

const keyOf = (login: string | null) => (login === null ? null : usernameKey(login));

/** The columns a profile sets; the first login (name, else email) is kept beside them. */
function profileColumns(p: Partial<UserProfile>) {
  return {
    ...(p.name !== undefined && { name: p.name, name_key: keyOf(p.name) }),
    ...(p.email !== undefined && { email: p.email, email_key: keyOf(p.email) }),
    ...(p.authMethod !== undefined && { auth_method: p.authMethod }),
    ...(p.emailAlerts !== undefined && { email_alerts: p.emailAlerts ? 1 : 0 }),
    ...(p.clusterEmailAlerts !== undefined && { cluster_email_alerts: p.clusterEmailAlerts ? 1 : 0 }),
    ...(p.bdbsEmailAlerts !== undefined && {
      bdbs_email_alerts: p.bdbsEmailAlerts === null ? null : JSON.stringify(p.bdbsEmailAlerts),
    }),
    ...(p.certificateSubjectLine !== undefined && { certificate_subject_line: p.certificateSubjectLine }),
  };
}

/** Users over any Kysely dialect: the queries are written once. */
export class KyselyUserStore implements UserStore, CredentialStore {
  private readonly userByUid;
  private readonly userByName;
  private readonly userByEmail;
  private readonly passwordsByUid;

  constructor(
    private readonly db: Db,
    private readonly events: EventHub,
  ) {
    const users = db.selectFrom('users').select([...COLUMNS, ...DERIVED]);
    this.userByUid = precompiled(db, users.where('uid', '=', 0));
    // Two unique-index lookups: one query with OR took ~5× as long on SQLite (a multi-index OR).
    this.userByName = precompiled(db, users.where('name_key', '=', ''));
    this.userByEmail = precompiled(db, users.where('email_key', '=', ''));
    this.passwordsByUid = precompiled(
      db,
      db.selectFrom('user_passwords').select(['id', 'hash']).where('uid', '=', 0).orderBy('id'),
    );
  }

  private selectUsers(db: Executor = this.db) {
    return db.selectFrom('users').select([...COLUMNS, ...DERIVED]);
  }

  async list(): Promise<User[]> {
    return (await this.selectUsers().where('realm', '=', 'local').orderBy('uid').execute()).map(toUser);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('realm', '=', 'local')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async hasUsers(): Promise<boolean> {
    return (
      (await this.db.selectFrom('users').select('uid').where('realm', '=', 'local').limit(1).executeTakeFirst()) !==
      undefined
    );
  }

  countAdmins(): Promise<number> {
    return countAdmins(this.db);
  }

  async getByUid(uid: number): Promise<User | undefined> {
    const [row] = await this.userByUid(uid);
    return row && toUser(row);
  }

  async findByUsername(username: string): Promise<User | undefined> {
    // No login holds a NUL (PostgreSQL's text refuses one: the query would fail, not find nobody).
    if (username.includes('\u0000')) return undefined;
    const row = await this.rowByLogin(username);
    return row && toUser(row);
  }

  /** The user whose name, else whose email, this is (regardless of case). */
  private async rowByLogin(login: string): Promise<UserRow | undefined> {
    const key = usernameKey(login);
    const [byName] = await this.userByName(key);
    if (byName) return byName;
    const [byEmail] = await this.userByEmail(key);
    return byEmail;
  }

  async findByCertificateSubject(subjectLine: string): Promise<User | undefined> {
    const row = await this.selectUsers()
      .where('certificate_subject_line', '=', subjectLine)
      .where('auth_method', '=', 'certificate')
      .executeTakeFirst();
    return row && toUser(row as UserRow);
  }

  async findByDirectoryKey(directoryKey: string): Promise<User | undefined> {
    const row = await this.selectUsers().where('directory_key', '=', directoryKey).executeTakeFirst();
    return row && toUser(row as UserRow);
  }

  async upsertDirectoryUser(account: DirectoryAccount, at: Date): Promise<User | undefined> {
    const current =
      (await this.findByDirectoryKey(account.directoryKey)) ??
      (account.adopt === undefined ? undefined : await this.getByUid(account.adopt));
    if (current) {
      if (sameRoles(account.roleUids, current.roleUids) && current.directoryKey === account.directoryKey)
        return current;
      // Its groups changed: new roles, and the tokens issued with the old ones end.
      await this.revoking(current.uid, {}, async (trx) => {
        await trx
          .updateTable('users')
          .set({ directory_key: account.directoryKey })
          .where('uid', '=', current.uid)
          .execute();
        await this.setRoles(trx, current.uid, account.roleUids);
      });
      return this.getByUid(current.uid);
    }
    const key = usernameKey(account.name);
    const made = await serialized(this.db, async (trx) => {
      if (await this.takenLogins({ name: account.name, email: null }, undefined, trx)) return 'taken' as const;
      const row = await trx
        .insertInto('users')
        .values({
          username: account.name,
          username_key: key,
          name: account.name,
          name_key: key,
          realm: 'ldap',
          directory_key: account.directoryKey,
          password_issue_date: at.toISOString(),
          created_at: at.toISOString(),
        })
        .onConflict((oc) => oc.doNothing())
        .returning('uid')
        .executeTakeFirst();
      if (row) await this.setRoles(trx, row.uid, account.roleUids);
      return row?.uid;
    });
    if (made === 'taken') return undefined;
    // Another node made it at the same moment: take that one (and its roles, at once).
    if (made === undefined)
      return (await this.findByDirectoryKey(account.directoryKey)) && this.upsertDirectoryUser(account, at);
    this.events.emit('userChanged', made);
    return this.getByUid(made);
  }

  revokeDirectoryUsers(): Promise<void> {
    return this.revokeWhere((eb) => eb('realm', '=', 'ldap'));
  }

  /** Every user's tokens, in one transaction: the epochs are ordered by the store, whatever the nodes' clocks. */
  revokeEveryone(): Promise<void> {
    return this.revokeWhere(() => sql<SqlBool>`1 = 1`);
  }

  revokeCertificateUsers(): Promise<void> {
    // A directory user may have come by a certificate too (LDAP certificate logins, cba).
    return this.revokeWhere((eb) => eb.or([eb('auth_method', '=', 'certificate'), eb('realm', '=', 'ldap')]));
  }

  revokeSsoUsers(): Promise<void> {
    // SSO's own users, and any other user whose last sign-in was by SSO (its session is recorded).
    return this.revokeWhere((eb) =>
      eb.or([eb('auth_method', '=', 'sso'), eb('uid', 'in', eb.selectFrom('sso_sessions').select('uid'))]),
    );
  }

  async revokePasswordUsers(): Promise<void> {
    const uids = (await this.list())
      .filter((u) => u.realm === 'local' && !u.rights.includes('admin'))
      .map((u) => u.uid);
    if (uids.length > 0) await this.revokeWhere((eb) => eb('uid', 'in', uids));
  }

  /** Ends the tokens of every user the condition picks, in one transaction. */
  private async revokeWhere(which: (eb: ExpressionBuilder<Database, 'users'>) => Expression<SqlBool>): Promise<void> {
    const uids = await this.db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('users').select('uid').where(which).execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('users')
        .set((eb) => ({ token_epoch: eb('token_epoch', '+', 1) }))
        .where(which)
        .execute();
      const now = new Date().toISOString();
      await trx
        .insertInto('revocations')
        .values(rows.map(({ uid }) => ({ uid, created_at: now })))
        .execute();
      await trx
        .updateTable('sessions')
        .set({ ended_at: now })
        .where('uid', 'in', trx.selectFrom('users').select('uid').where(which))
        .where('ended_at', 'is', null)
        .execute();
      return rows.map((r) => r.uid);
    });
    for (const uid of uids) this.announceRevoked(uid);
  }

  async takenLogins(logins: { name: string | null; email: string | null }, exceptUid?: number, db: Executor = this.db) {
    const keys = [keyOf(logins.name), keyOf(logins.email)].filter((k): k is string => k !== null);
    if (keys.length === 0) return undefined;
    let query = db
      .selectFrom('users')
      .select(['name_key', 'email_key'])
      .where((eb) => eb.or([eb('name_key', 'in', keys), eb('email_key', 'in', keys)]));
    if (exceptUid !== undefined) query = query.where('uid', '!=', exceptUid);
    const rows = await query.execute();
    if (rows.length === 0) return undefined;
    const held = new Set(rows.flatMap((r) => [r.name_key, r.email_key]));
    return logins.name !== null && held.has(keyOf(logins.name)) ? ('name' as const) : ('email' as const);
  }

  async delete(uid: number, guard?: UserGuard): Promise<boolean> {
    return this.revoking(uid, { lastAdmin: 'delete_last_admin_not_allowed', guard }, async (trx) => {
      await trx.deleteFrom('user_passwords').where('uid', '=', uid).execute();
      await trx.deleteFrom('user_roles').where('uid', '=', uid).execute();
      await trx.deleteFrom('sessions').where('uid', '=', uid).execute();
      await trx.deleteFrom('api_keys').where('uid', '=', uid).execute();
      // Its second factors go with it (a TOTP secret, a passkey that may be registered to another account later).
      for (const table of ['mfa_factors', 'mfa_recovery_codes', 'mfa_challenges'] as const)
        await trx.deleteFrom(table).where('uid', '=', uid).execute();
      const result = await trx.deleteFrom('users').where('uid', '=', uid).executeTakeFirst();
      return result.numDeletedRows > 0n;
    });
  }

  /** Moves last_login forward only: a node whose write arrives late (or whose clock is behind) does not move it back. */
  async recordLogin(uid: number, at: Date): Promise<void> {
    const iso = at.toISOString();
    const result = await this.db
      .updateTable('users')
      .set({ last_login: iso })
      .where('uid', '=', uid)
      .where((eb) => eb.or([eb('last_login', 'is', null), eb('last_login', '<', iso)]))
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) this.events.emit('loginRecorded', uid, at);
  }

  async expirePassword(uid: number, at: Date): Promise<void> {
    await this.db.updateTable('users').set({ password_expires_at: at.toISOString() }).where('uid', '=', uid).execute();
    this.events.emit('userChanged', uid);
  }

  updateProfile(uid: number, changes: ProfileChanges, guard?: UserGuard): Promise<void> {
    return this.update(uid, changes, guard);
  }

  updateProfileAndPassword(uid: number, changes: ProfileChanges, password: NewPasswordHash, guard?: UserGuard) {
    return this.update(uid, changes, guard, password);
  }

  private async update(uid: number, changes: ProfileChanges, guard?: UserGuard, password?: NewPasswordHash) {
    let revoked = false;
    try {
      await serialized(this.db, async (trx) => {
        const current = await this.guarded(trx, uid, guard);
        const rolesKept = changes.roleUids === undefined || sameRoles(changes.roleUids, current.roleUids);
        // New rights, or a new certificate subject (what proves who it is): its tokens end.
        const newSubject =
          changes.certificateSubjectLine !== undefined &&
          changes.certificateSubjectLine !== current.certificateSubjectLine;
        revoked = !rolesKept || newSubject || password !== undefined;
        const admins = revoked ? await countAdmins(trx) : 0;
        const taken = await this.takenLogins({ name: changes.name ?? null, email: changes.email ?? null }, uid, trx);
        if (taken) throw taken === 'name' ? new UserAlreadyExistsError() : new EmailAlreadyExistsError();
        const first = ((changes.name === undefined ? current.name : changes.name) ??
          (changes.email === undefined ? current.email : changes.email))!;
        await trx
          .updateTable('users')
          .set({ ...profileColumns(changes), username: first, username_key: usernameKey(first) })
          .where('uid', '=', uid)
          .execute();
        if (!rolesKept) await this.setRoles(trx, uid, changes.roleUids!);
        if (password) await this.writePassword(trx, uid, password);
        if (!revoked) return;
        if (admins > 0 && (await countAdmins(trx)) === 0)
          throw new LastAdminError('change_last_admin_role_not_allowed');
        await this.raiseEpoch(trx, uid);
      });
    } catch (err) {
      throw loginTaken(err);
    }
    if (revoked) this.announceRevoked(uid);
    else this.events.emit('userChanged', uid);
  }

  async lock(uid: number, until: Date, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ locked_until: until.toISOString() })
      .where('uid', '=', uid)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now.toISOString())]))
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    this.events.emit('userChanged', uid);
    return true;
  }

  async unlock(uid: number, at: Date): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ locked_until: null, lock_reset_at: at.toISOString() })
      .where('uid', '=', uid)
      .execute();
    this.events.emit('userChanged', uid);
  }

  async revokeTokens(uid: number): Promise<void> {
    await this.revoking(uid, {}, async () => {});
  }

  async revokeTokensOfRole(roleUid: number): Promise<void> {
    const rows = await this.db.selectFrom('user_roles').select('uid').where('role_uid', '=', roleUid).execute();
    for (const { uid } of rows) await this.revokeTokens(uid);
  }

  async findCredential(username: string) {
    const row = await this.rowByLogin(username);
    return row && { user: toUser(row), passwords: await this.passwordsByUid(row.uid) };
  }

  passwordsOf(uid: number) {
    return this.passwordsByUid(uid);
  }

  async getCredential(uid: number) {
    const user = await this.getByUid(uid);
    return user && { user, passwords: await this.passwordsByUid(uid) };
  }

  async create(user: NewUser): Promise<User> {
    const first = (user.name ?? user.email)!;
    let created: User;
    try {
      created = await serialized(this.db, async (trx) => {
        const taken = await this.takenLogins(user, undefined, trx);
        if (taken) throw taken === 'name' ? new UserAlreadyExistsError() : new EmailAlreadyExistsError();
        const row = await trx
          .insertInto('users')
          .values({
            ...profileColumns(user),
            username: first,
            username_key: usernameKey(first),
            password_issue_date: user.passwordIssueDate.toISOString(),
            created_at: new Date().toISOString(),
          })
          .returning('uid')
          .executeTakeFirstOrThrow();
        await this.setRoles(trx, row.uid, user.roleUids);
        if (user.passwordHash !== undefined)
          await this.insertPassword(trx, row.uid, user.passwordHash, user.passwordIssueDate);
        return toUser((await this.selectUsers(trx).where('uid', '=', row.uid).executeTakeFirstOrThrow()) as UserRow);
      });
    } catch (err) {
      throw loginTaken(err);
    }
    this.events.emit('userChanged', created.uid);
    return created;
  }

  async replacePasswords(uid: number, passwordHash: string, issuedAt: Date, guard?: UserGuard): Promise<void> {
    await this.revoking(uid, { guard }, (trx) => this.writePassword(trx, uid, { hash: passwordHash, issuedAt }));
  }

  /** One password instead of all, in the caller's transaction: a new issue date, expiry and lock lifted. */
  private async writePassword(trx: Transaction<Database>, uid: number, { hash, issuedAt }: NewPasswordHash) {
    await trx.deleteFrom('user_passwords').where('uid', '=', uid).execute();
    await this.insertPassword(trx, uid, hash, issuedAt);
    await trx
      .updateTable('users')
      .set({
        password_issue_date: issuedAt.toISOString(),
        password_expires_at: null,
        locked_until: null,
        lock_reset_at: issuedAt.toISOString(),
      })
      .where('uid', '=', uid)
      .execute();
  }

  async addPassword(uid: number, passwordHash: string, at: Date, revoke = false, guard?: UserGuard): Promise<void> {
    if (revoke) await this.revoking(uid, { guard }, (trx) => this.insertPassword(trx, uid, passwordHash, at));
    else await this.insertPassword(this.db, uid, passwordHash, at);
  }

  async deletePassword(uid: number, passwordId: number, guard?: UserGuard): Promise<void> {
    await this.revoking(uid, { guard }, (trx) =>
      trx.deleteFrom('user_passwords').where('uid', '=', uid).where('id', '=', passwordId).execute(),
    );
  }

  async moveToSso(uid: number): Promise<User> {
    const adminKept: UserGuard = (current) => {
      if (current.rights.includes('admin')) throw new UnauthorizedActionError('An admin keeps its password');
    };
    await this.revoking(uid, { guard: adminKept }, async (trx) => {
      await trx.deleteFrom('user_passwords').where('uid', '=', uid).execute();
      await trx
        .updateTable('users')
        .set({ auth_method: 'sso', password_expires_at: null })
        .where('uid', '=', uid)
        .execute();
    });
    return (await this.getByUid(uid))!;
  }

  async replaceHash(passwordId: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('user_passwords').set({ hash: passwordHash }).where('id', '=', passwordId).execute();
  }

  private async insertPassword(db: Executor, uid: number, hash: string, at: Date): Promise<void> {
    await db.insertInto('user_passwords').values({ uid, hash, created_at: at.toISOString() }).execute();
  }

  private async setRoles(trx: Transaction<Database>, uid: number, roleUids: readonly number[]): Promise<void> {
    await trx.deleteFrom('user_roles').where('uid', '=', uid).execute();
    if (roleUids.length > 0)
      await trx
        .insertInto('user_roles')
        .values(roleUids.map((role_uid) => ({ uid, role_uid })))
        .execute();
  }

  /**
   * Runs a change in one serialized transaction with the token-epoch raise and a revocation
   * event that other processes read, then tells this process. `lastAdmin`: the change must not
   * leave the cluster without an admin (checked after it, in the same transaction); `guard`:
   * who asks may still change the user as it is now.
   */
  private async revoking<T>(
    uid: number,
    options: { lastAdmin?: LastAdminCode; guard?: UserGuard },
    change: (trx: Transaction<Database>) => Promise<T>,
  ): Promise<T> {
    const { lastAdmin, guard } = options;
    const result = await serialized(this.db, async (trx) => {
      if (guard) await this.guarded(trx, uid, guard);
      const admins = lastAdmin && (await countAdmins(trx));
      const value = await change(trx);
      if (lastAdmin && admins && (await countAdmins(trx)) === 0) throw new LastAdminError(lastAdmin);
      await this.raiseEpoch(trx, uid);
      return value;
    });
    this.announceRevoked(uid);
    return result;
  }

  /** Ends the user's tokens: its epoch up, and a revocation event that other processes read; its sessions are over with them. */
  private async raiseEpoch(trx: Transaction<Database>, uid: number): Promise<void> {
    await trx
      .updateTable('sessions')
      .set({ ended_at: new Date().toISOString() })
      .where('uid', '=', uid)
      .where('ended_at', 'is', null)
      .execute();
    await trx
      .updateTable('users')
      .set((eb) => ({ token_epoch: eb('token_epoch', '+', 1) }))
      .where('uid', '=', uid)
      .execute();
    await trx.insertInto('revocations').values({ uid, created_at: new Date().toISOString() }).execute();
  }

  /** The user as the transaction sees it, which the guard lets this change; UserNotFoundError when it is gone. */
  private async guarded(trx: Transaction<Database>, uid: number, guard?: UserGuard): Promise<User> {
    const row = await this.selectUsers(trx).where('uid', '=', uid).executeTakeFirst();
    if (!row) throw new UserNotFoundError();
    const user = toUser(row);
    guard?.(user);
    return user;
  }

  private announceRevoked(uid: number): void {
    this.events.emit('tokensRevoked', uid);
    this.events.emit('userChanged', uid);
  }
}

type LastAdminCode = ConstructorParameters<typeof LastAdminError>[0];

/** Local users holding a role of admin management: those the cluster must keep one of. */
export async function countAdmins(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('realm', '=', 'local')
    .where((eb) =>
      eb(
        'uid',
        'in',
        eb
          .selectFrom('user_roles')
          .innerJoin('roles', 'roles.uid', 'user_roles.role_uid')
          .select('user_roles.uid')
          .where('roles.management', '=', 'admin'),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A unique index that refused a login (or a certificate subject) two writers raced for, as the domain's error. */
function loginTaken(err: unknown): unknown {
  const text = String((err as { message?: string }).message ?? '');
  if (/email_key/.test(text)) return new EmailAlreadyExistsError();
  if (/certificate_subject_line/.test(text) && /unique|duplicate/i.test(text)) {
    return new UserAlreadyExistsError(
      'name_already_exists',
      'A user with this certificate_subject_line already exists',
    );
  }
  if (/(name_key|username_key)/.test(text) && /unique|duplicate/i.test(text)) return new UserAlreadyExistsError();
  return err;
}
