import { Command, Option } from 'commander';
import type { AuditLog } from '../audit/audit-log.js';
import { DEFAULTS } from '../config/config.js';
import { loadKeyRing } from '../tessera.js';
import type { KeyRing } from '../tokens/key-ring.js';
import { SIGNING_ALGS, type SigningAlg } from '../tokens/signing-alg.js';
import { addKeyOptions, addKeyRotationOptions, type SettingOptions } from './options.js';
import { CLI_CONTEXT, withStore } from './with-store.js';

function withKeyRing<T>(o: SettingOptions, fn: (keys: KeyRing, audit: AuditLog) => Promise<T>): Promise<T> {
  return withStore(o, async (t) => fn(await loadKeyRing(t.db, t.config), t.audit));
}

function keysRotateCommand(): Command {
  return addKeyRotationOptions(new Command('rotate'))
    .description('Stage a new signing key: published in the JWKS now, signing after --key-activation-delay')
    .addOption(
      new Option('--alg <alg>', 'algorithm of the new key (a rotation may change it)')
        .env('TESSERA_SIGNING_ALG')
        .choices(SIGNING_ALGS)
        .default(DEFAULTS.signingAlg),
    )
    .action(async (o: SettingOptions & { alg: SigningAlg }) => {
      const { kid, alg, activatesAt } = await withKeyRing(o, async (keys, audit) => {
        const staged = await keys.rotate(o.alg);
        audit.record(CLI_CONTEXT, { event: 'key_rotate', outcome: 'success', target: `signing_key ${staged.kid}` });
        return staged;
      });
      process.stderr.write(`Staged ${alg} key ${kid}: in the JWKS now, signs from ${activatesAt.toISOString()}\n`);
      process.stdout.write(`${kid}\n`);
    });
}

function keysListCommand(): Command {
  return addKeyOptions(new Command('list'))
    .description('List the published signing keys')
    .action(async (o: SettingOptions) => {
      const keys = await withKeyRing(o, async (ring) => ring.list());
      if (keys.length > 0) process.stdout.write(`${'KID'.padEnd(keys[0]!.kid.length)}  ALG    STATE\n`);
      for (const k of keys) {
        const when = k.state === 'next' && k.activateAt ? ` (signs from ${k.activateAt.toISOString()})` : '';
        process.stdout.write(`${k.kid}  ${k.alg.padEnd(5)}  ${k.state}${when}\n`);
      }
    });
}

export function keysCommand(): Command {
  return new Command('keys')
    .description('Signing keys: list and rotate (works while servers run)')
    .addCommand(keysListCommand())
    .addCommand(keysRotateCommand());
}
