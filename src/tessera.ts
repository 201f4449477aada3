import { AuthService } from './auth/auth-service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config/config.js';
import { type Db, openSqlite } from './store/database.js';
import { KeyRing } from './tokens/key-ring.js';
import { KyselyKeyStore } from './tokens/kysely-key-store.js';
import { TokenIssuer } from './tokens/token-issuer.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { KyselyUserStore } from './users/kysely-user-store.js';
import { Argon2Hasher, type PasswordHasher } from './users/password-hasher.js';

/** Everything a Tessera process works with, wired once: the composition root. */
export interface Tessera {
  config: Config;
  clock: Clock;
  db: Db;
  users: KyselyUserStore;
  hasher: PasswordHasher;
  keys: KeyRing;
  auth: AuthService;
  close(): Promise<void>;
}

export async function openTessera(config: Config, clock: Clock = systemClock): Promise<Tessera> {
  const db = await openSqlite(config.dataDir);
  try {
    const users = new KyselyUserStore(db);
    const hasher = await Argon2Hasher.create(config.argon2);
    const keys = await KeyRing.load(new KyselyKeyStore(db));
    const issuer = new TokenIssuer(keys, config.issuer, clock);
    const verifier = new TokenVerifier(keys, config.issuer, config.clockLeewaySeconds, clock);
    const auth = new AuthService({ users, credentials: users, hasher, issuer, verifier, clock });
    return { config, clock, db, users, hasher, keys, auth, close: () => db.destroy() };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
