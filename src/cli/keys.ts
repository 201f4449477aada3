import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { masterKeyBytes } from '../config/config.js';
import { openDatabase } from '../store/database.js';
import { KeyRing } from '../tokens/key-ring.js';
import { KeySealer } from '../tokens/key-sealer.js';
import { KyselyKeyStore } from '../tokens/kysely-key-store.js';
import { addKeyOptions, configFromOptions, type StoreOptions } from './options.js';

async function withKeyRing<T>(o: StoreOptions, fn: (keys: KeyRing) => Promise<T>): Promise<T> {
  const config = configFromOptions(o);
  const { db } = await openDatabase(config);
  try {
    const keys = await KeyRing.load(new KyselyKeyStore(db), {
      sealer: new KeySealer(config.masterKey ? masterKeyBytes(config.masterKey) : undefined),
      clock: systemClock,
      activationDelayMs: config.keyActivationDelaySeconds * 1000,
      leewayMs: config.clockLeewaySeconds * 1000,
    });
    return await fn(keys);
  } finally {
    await db.destroy();
  }
}

function keysRotateCommand(): Command {
  return addKeyOptions(new Command('rotate'))
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
