import type { Logger } from 'pino';
import { AuditLog } from './audit/audit-log.js';
import { AuthService } from './auth/auth-service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config/config.js';
import { ClientThrottle } from './guard/client-throttle.js';
import { Lockout } from './guard/lockout.js';
import { MemoryLoginGuard } from './guard/login-guard.js';
import { PolicyService } from './policy/policy-service.js';
import { KyselyPolicyStore } from './policy/policy-store.js';
import { type Db, openSqlite } from './store/database.js';
import { KeyRing } from './tokens/key-ring.js';
import { KyselyKeyStore } from './tokens/kysely-key-store.js';
import { RevocationList } from './tokens/revocation-list.js';
import { KyselyRevocationStore } from './tokens/revocation-store.js';
import { TokenIssuer } from './tokens/token-issuer.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { AccountService } from './users/account-service.js';
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
  policy: PolicyService;
  revocations: RevocationList;
  throttle: ClientThrottle;
  audit: AuditLog;
  auth: AuthService;
  accounts: AccountService;
  close(): Promise<void>;
}

export interface OpenOptions {
  clock?: Clock;
  /** Where audit lines go; none when omitted. */
  logger?: Logger;
}

export async function openTessera(config: Config, { clock = systemClock, logger }: OpenOptions = {}): Promise<Tessera> {
  const db = await openSqlite(config.dataDir);
  try {
    const users = new KyselyUserStore(db);
    const hasher = await Argon2Hasher.create(config.argon2);
    const keys = await KeyRing.load(new KyselyKeyStore(db));
    const policy = new PolicyService(new KyselyPolicyStore(db), clock);
    const revocations = new RevocationList(new KyselyRevocationStore(db), clock);
    await revocations.start();
    users.onRevoked = (uid) => revocations.userChanged(uid);
    const audit = new AuditLog(logger);
    const lockout = new Lockout(new MemoryLoginGuard(clock), users, audit, clock);
    const issuer = new TokenIssuer(keys, config.issuer, clock);
    const verifier = new TokenVerifier(keys, config.issuer, config.clockLeewaySeconds, clock);
    const throttle = new ClientThrottle(config.authRateLimit);
    const auth = new AuthService({
      ...{ users, credentials: users, hasher, issuer, verifier },
      ...{ revocations, policy, lockout, throttle, audit, clock },
    });
    const accounts = new AccountService({ users, hasher, policy, lockout, audit, clock });
    const close = async () => {
      await revocations.stop();
      await db.destroy();
    };
    return { config, clock, db, users, hasher, keys, policy, revocations, throttle, audit, auth, accounts, close };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
