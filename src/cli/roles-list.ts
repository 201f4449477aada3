import { Command } from 'commander';
import { toRoleView } from '../roles/role.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { printTable } from './table.js';
import { withStore } from './with-store.js';

export function rolesCommand(): Command {
  return new Command('roles')
    .description('The roles of the store (give them to users with `users add --role-uid`)')
    .addCommand(
      addStoreOptions(new Command('list'))
        .description(
          'List the roles: uid, name and the management level each grants (and the databases it is limited to)',
        )
        .option('--json', 'print the role objects as JSON, as GET /v1/roles returns them')
        .action(async (o: SettingOptions & { json?: boolean }) => {
          const roles = await withStore(o, (t) => t.roles.list());
          if (o.json) {
            process.stdout.write(`${JSON.stringify(roles.map(toRoleView), null, 2)}\n`);
            return;
          }
          const rows = [
            ['UID', 'NAME', 'MANAGEMENT'],
            ...roles.map((r) => [
              String(r.uid),
              r.name,
              [r.management, ...r.resources.map((s) => `(${s.type} ${s.uids.join(',')})`)].join(' '),
            ]),
          ];
          printTable(rows);
        }),
    );
}
