import type { Selectable } from 'kysely';
import { UserAlreadyExistsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { UsersTable } from '../store/schema.js';
import { isRole, type User } from './user.js';
import type { CredentialStore, NewUser, UserStore } from './user-store.js';
import { usernameKey } from './username.js';

const USER_COLUMNS = [
  'uid',
  'username',
  'name',
  'role',
  'password_issue_date',
  'password_expires_at',
  'created_at',
  'last_login',
] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

function toUser(row: UserRow): User {
  return {
    uid: row.uid,
    username: row.username,
    name: row.name,
    role: isRole(row.role) ? row.role : 'none',
    passwordIssueDate: new Date(row.password_issue_date),
    passwordExpiresAt: row.password_expires_at ? new Date(row.password_expires_at) : null,
    createdAt: new Date(row.created_at),
    lastLogin: row.last_login ? new Date(row.last_login) : null,
  };
}

/** Users over any Kysely dialect: the queries are written once. */
export class KyselyUserStore implements UserStore, CredentialStore {
  constructor(private readonly db: Db) {}

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

  async getByUid(uid: number): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('uid', '=', uid)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async findByUsername(username: string): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('username_key', '=', usernameKey(username))
      .executeTakeFirst();
    return row && toUser(row);
  }

  async delete(uid: number): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('uid', '=', uid).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async recordLogin(uid: number, at: Date): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ last_login: at.toISOString() })
      .where('uid', '=', uid)
      .execute();
  }

  async expirePassword(uid: number, at: Date): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_expires_at: at.toISOString() })
      .where('uid', '=', uid)
      .execute();
  }

  async findCredential(username: string) {
    const row = await this.db
      .selectFrom('users')
      .select([...USER_COLUMNS, 'password_hash'])
      .where('username_key', '=', usernameKey(username))
      .executeTakeFirst();
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async create(user: NewUser): Promise<User> {
    const now = new Date().toISOString();
    const row = await this.db
      .insertInto('users')
      .values({
        username: user.username,
        username_key: usernameKey(user.username),
        name: user.name,
        role: user.role,
        password_hash: user.passwordHash,
        password_issue_date: user.passwordIssueDate.toISOString(),
        created_at: now,
      })
      .onConflict((oc) => oc.column('username_key').doNothing())
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    if (!row) throw new UserAlreadyExistsError();
    return toUser(row);
  }

  async setPassword(uid: number, passwordHash: string, issuedAt: Date): Promise<void> {
    await this.db
      .updateTable('users')
      .set({
        password_hash: passwordHash,
        password_issue_date: issuedAt.toISOString(),
        password_expires_at: null,
      })
      .where('uid', '=', uid)
      .execute();
  }

  async replaceHash(uid: number, passwordHash: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('uid', '=', uid)
      .execute();
  }
}
