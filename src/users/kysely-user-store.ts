import type { Selectable, Transaction } from 'kysely';
import { UserAlreadyExistsError } from '../errors.js';
import type { Db } from '../store/database.js';
import { precompiled } from '../store/precompiled.js';
import type { Database, UsersTable } from '../store/schema.js';
import { isRole, type Role, type User } from './user.js';
import type { CredentialStore, NewUser, UserStore } from './user-store.js';
import { usernameKey } from './username.js';

const USER_COLUMNS = [
  'uid',
  'username',
  'name',
  'role',
  'password_issue_date',
  'password_expires_at',
  'locked_until',
  'lock_reset_at',
  'token_epoch',
  'created_at',
  'last_login',
] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;
type Executor = Db | Transaction<Database>;

const date = (iso: string | null) => (iso ? new Date(iso) : null);

function toUser(row: UserRow): User {
  return {
    uid: row.uid,
    username: row.username,
    name: row.name,
    role: isRole(row.role) ? row.role : 'none',
    passwordIssueDate: new Date(row.password_issue_date),
    passwordExpiresAt: date(row.password_expires_at),
    lockedUntil: date(row.locked_until),
    lockResetAt: date(row.lock_reset_at),
    tokenEpoch: Number(row.token_epoch),
    createdAt: new Date(row.created_at),
    lastLogin: date(row.last_login),
  };
}

/** Users over any Kysely dialect: the queries are written once. */
export class KyselyUserStore implements UserStore, CredentialStore {
  /** Told after every committed change that revokes a user's tokens. */
  onRevoked: (uid: number) => void = () => {};
  /** Told after every committed change to what a user object shows. */
  onChanged: (uid: number) => void = () => {};

  private readonly userByUid;
  private readonly userByKey;
  private readonly passwordsByUid;

  constructor(private readonly db: Db) {
    this.userByUid = precompiled(db, db.selectFrom('users').select(USER_COLUMNS).where('uid', '=', 0));
    this.userByKey = precompiled(db, db.selectFrom('users').select(USER_COLUMNS).where('username_key', '=', ''));
    this.passwordsByUid = precompiled(
      db,
      db.selectFrom('user_passwords').select(['id', 'hash']).where('uid', '=', 0).orderBy('id'),
    );
  }

  async list(): Promise<User[]> {
    const rows = await this.db.selectFrom('users').select(USER_COLUMNS).orderBy('uid').execute();
    return rows.map(toUser);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countByRole(role: Role): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', role)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async getByUid(uid: number): Promise<User | undefined> {
    const [row] = await this.userByUid(uid);
    return row && toUser(row);
  }

  async findByUsername(username: string): Promise<User | undefined> {
    const [row] = await this.userByKey(usernameKey(username));
    return row && toUser(row);
  }

  async delete(uid: number): Promise<boolean> {
    const deleted = await this.revoking(uid, async (trx) => {
      await trx.deleteFrom('user_passwords').where('uid', '=', uid).execute();
      const result = await trx.deleteFrom('users').where('uid', '=', uid).executeTakeFirst();
      return result.numDeletedRows > 0n;
    });
    return deleted;
  }

  async recordLogin(uid: number, at: Date): Promise<void> {
    await this.db.updateTable('users').set({ last_login: at.toISOString() }).where('uid', '=', uid).execute();
    this.onChanged(uid);
  }

  async expirePassword(uid: number, at: Date): Promise<void> {
    await this.db.updateTable('users').set({ password_expires_at: at.toISOString() }).where('uid', '=', uid).execute();
    this.onChanged(uid);
  }

  async updateProfile(uid: number, changes: { name?: string | null; role?: Role }): Promise<void> {
    const current = await this.getByUid(uid);
    if (!current) return;
    const roleChanges = changes.role !== undefined && changes.role !== current.role;
    const set = { ...(changes.name !== undefined && { name: changes.name }), ...(changes.role && { role: changes.role }) };
    if (Object.keys(set).length === 0) return;
    if (!roleChanges) {
      await this.db.updateTable('users').set(set).where('uid', '=', uid).execute();
      this.onChanged(uid);
      return;
    }
    await this.revoking(uid, (trx) => trx.updateTable('users').set(set).where('uid', '=', uid).execute());
  }

  async lock(uid: number, until: Date, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ locked_until: until.toISOString() })
      .where('uid', '=', uid)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now.toISOString())]))
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    this.onChanged(uid);
    return true;
  }

  async unlock(uid: number, at: Date): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ locked_until: null, lock_reset_at: at.toISOString() })
      .where('uid', '=', uid)
      .execute();
    this.onChanged(uid);
  }

  async revokeTokens(uid: number): Promise<void> {
    await this.revoking(uid, async () => {});
  }

  async findCredential(username: string) {
    const [row] = await this.userByKey(usernameKey(username));
    return row && { user: toUser(row), passwords: await this.passwordsByUid(row.uid) };
  }

  async getCredential(uid: number) {
    const user = await this.getByUid(uid);
    return user && { user, passwords: await this.passwordsByUid(uid) };
  }

  async create(user: NewUser): Promise<User> {
    const created = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('users')
        .values({
          username: user.username,
          username_key: usernameKey(user.username),
          name: user.name,
          role: user.role,
          password_issue_date: user.passwordIssueDate.toISOString(),
          created_at: new Date().toISOString(),
        })
        .onConflict((oc) => oc.column('username_key').doNothing())
        .returning(USER_COLUMNS)
        .executeTakeFirst();
      if (!row) throw new UserAlreadyExistsError();
      await this.insertPassword(trx, row.uid, user.passwordHash, user.passwordIssueDate);
      return toUser(row);
    });
    this.onChanged(created.uid);
    return created;
  }

  async replacePasswords(uid: number, passwordHash: string, issuedAt: Date): Promise<void> {
    await this.revoking(uid, async (trx) => {
      await trx.deleteFrom('user_passwords').where('uid', '=', uid).execute();
      await this.insertPassword(trx, uid, passwordHash, issuedAt);
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
    });
  }

  async addPassword(uid: number, passwordHash: string, at: Date): Promise<void> {
    await this.insertPassword(this.db, uid, passwordHash, at);
  }

  async deletePassword(uid: number, passwordId: number): Promise<void> {
    await this.revoking(uid, (trx) =>
      trx.deleteFrom('user_passwords').where('uid', '=', uid).where('id', '=', passwordId).execute(),
    );
  }

  async replaceHash(passwordId: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('user_passwords').set({ hash: passwordHash }).where('id', '=', passwordId).execute();
  }

  private async insertPassword(db: Executor, uid: number, hash: string, at: Date): Promise<void> {
    await db.insertInto('user_passwords').values({ uid, hash, created_at: at.toISOString() }).execute();
  }

  /**
   * Runs a change in one transaction with the token-epoch raise and a revocation event that
   * other processes read, then tells this process.
   */
  private async revoking<T>(uid: number, change: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const result = await this.db.transaction().execute(async (trx) => {
      const value = await change(trx);
      await trx
        .updateTable('users')
        .set((eb) => ({ token_epoch: eb('token_epoch', '+', 1) }))
        .where('uid', '=', uid)
        .execute();
      await trx.insertInto('revocations').values({ uid, created_at: new Date().toISOString() }).execute();
      return value;
    });
    this.onRevoked(uid);
    this.onChanged(uid);
    return result;
  }
}
