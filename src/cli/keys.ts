import { Command } from 'commander';
import { openDatabase } from '../store/database.js';
import { loadKeyRing } from '../tessera.js';
import type { KeyRing } from '../tokens/key-ring.js';
import { addKeyOptions, addKeyRotationOptions, configFromOptions, type StoreOptions } from './options.js';

async function withKeyRing<T>(o: StoreOptions, fn: (keys: KeyRing) => Promise<T>): Promise<T> {
  const config = configFromOptions(o);
  const db = await openDatabase(config);
  try {
    return await fn(await loadKeyRing(db, config));
  } finally {
    await db.destroy();
  }
}

function keysRotateCommand(): Command {
  return addKeyRotationOptions(new Command('rotate'))
    .description('Stage a new signing key: published in the JWKS now, signing after --key-activation-delay')
    .action(async (o: StoreOptions) => {
      const { kid, activatesAt } = await withKeyRing(o, (keys) => keys.rotate());
      process.stderr.write(`Staged key ${kid}: in the JWKS now, signs from ${activatesAt.toISOString()}\n`);
      process.stdout.write(`${kid}\n`);
    });
}

function keysListCommand(): Command {
  return addKeyOptions(new Command('list'))
    .description('List the published signing keys')
    .action(async (o: StoreOptions) => {
      const keys = await withKeyRing(o, async (ring) => ring.list());
      for (const k of keys) {
        const when = k.state === 'next' && k.activateAt ? ` (signs from ${k.activateAt.toISOString()})` : '';
        process.stdout.write(`${k.kid}  ${k.state}${when}\n`);
      }
    });
}

export function keysCommand(): Command {
  return new Command('keys')
    .description('Signing keys: list and rotate (works while servers run)')
    .addCommand(keysListCommand())
    .addCommand(keysRotateCommand());
}
