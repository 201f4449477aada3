import { Command } from 'commander';
import { toUserView } from '../users/user-view.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { printTable } from './table.js';
import { withStore } from './with-store.js';

export function usersListCommand(): Command {
  return addStoreOptions(new Command('list'))
    .description('List the users of the store (SQLite under --data-dir, or PostgreSQL)')
    .option('--json', 'print the user objects as JSON, as GET /v1/users returns them')
    .action(async (o: SettingOptions & { json?: boolean }) => {
      const now = new Date();
      const users = await withStore(o, async (t) => {
        const policy = await t.policy.get();
        return (await t.users.list()).map((u) => toUserView(u, policy, now));
      });
      if (o.json) {
        process.stdout.write(`${JSON.stringify(users, null, 2)}\n`);
        return;
      }
      const rows = [
        ['UID', 'NAME', 'EMAIL', 'ROLE', 'ROLE UIDS', 'STATUS', 'LAST LOGIN'],
        ...users.map((u) => [
          String(u.uid),
          u.name || '-',
          u.email || '-',
          u.role,
          u.role_uids.join(',') || '-',
          u.status,
          u.last_login === undefined ? '-' : new Date(u.last_login * 1000).toISOString().replace('.000Z', 'Z'),
        ]),
      ];
      printTable(rows);
    });
}
