import type { TestTessera } from './test-tessera.js';

/**
 * What the store holds of users, roles and what happened to them: every row of the tables a
 * user or role write touches, and the event log once its writer has flushed. Two snapshots
 * equal: nothing was written between them.
 */
export async function storeSnapshot(t: TestTessera): Promise<Record<string, unknown[]>> {
  await t.tessera.eventWriter.flush();
  const db = t.tessera.db;
  return {
    users: await db.selectFrom('users').selectAll().orderBy('uid').execute(),
    user_roles: await db.selectFrom('user_roles').selectAll().orderBy('uid').orderBy('role_uid').execute(),
    user_passwords: await db.selectFrom('user_passwords').selectAll().orderBy('id').execute(),
    roles: await db.selectFrom('roles').selectAll().orderBy('uid').execute(),
    settings: await db.selectFrom('settings').selectAll().orderBy('key').execute(),
    revocations: await db.selectFrom('revocations').selectAll().orderBy('id').execute(),
    event_log: await db.selectFrom('event_log').selectAll().orderBy('id').execute(),
  };
}
