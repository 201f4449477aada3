// Seeds a SQLite data dir with N users that all share one password, quickly.
import path from 'node:path';
import { hash } from '@node-rs/argon2';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../../dist/store/database.js';
import { usernameKey } from '../../dist/users/username.js';

export const BENCH_PASSWORD = 'bench-password-1';
export const OWASP = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Users user0 … user{n-1} (user0 is an admin); returns when the file is ready. */
export async function seedUsers(dataDir, n) {
  const db = await openDatabase({ dataDir });
  await db.destroy();
  const passwordHash = await hash(BENCH_PASSWORD, OWASP);
  const file = new SQLite(path.join(dataDir, 'tessera.db'));
  const now = new Date().toISOString();
  // Each user logs in with its name (name_key), as a user made through the API does.
  const user = file.prepare(
    `insert into users (uid, username, username_key, name, name_key, password_issue_date, created_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
  );
  // Roles are role_uids alone (store migration 0010): the built-in Admin (1) and Cluster Viewer (3).
  const role = file.prepare('insert into user_roles (uid, role_uid) values (?, ?)');
  const password = file.prepare('insert into user_passwords (uid, hash, created_at) values (?, ?, ?)');
  const batch = file.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const name = `user${i}`;
      user.run(i + 1, name, usernameKey(name), name, usernameKey(name), now, now);
      role.run(i + 1, i === 0 ? 1 : 3);
      password.run(i + 1, passwordHash, now);
    }
  });
  for (let from = 0; from < n; from += 50_000) batch(from, Math.min(n, from + 50_000));
  file.close();
}
