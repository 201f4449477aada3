import type { Clock } from '../clock.js';
import { InvalidCredentialsError, InvalidTokenError, PasswordExpiredError } from '../errors.js';
import type { TokenClaims } from '../tokens/claims.js';
import type { TokenIssuer } from '../tokens/token-issuer.js';
import type { TokenVerifier } from '../tokens/token-verifier.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import { isPasswordExpired, type User } from '../users/user.js';
import type { CredentialStore, UserStore } from '../users/user-store.js';
import type { Credentials } from './credentials.js';

export interface AuthDeps {
  users: UserStore;
  credentials: CredentialStore;
  hasher: PasswordHasher;
  issuer: TokenIssuer;
  verifier: TokenVerifier;
  clock: Clock;
}

/** The identity of a request, from a token or from a password check. */
export interface Principal {
  uid: number;
  username: string;
  role: User['role'];
}

export class AuthService {
  constructor(private readonly deps: AuthDeps) {}

  /**
   * The login path. Unknown user and wrong password fail alike and cost one hash
   * verification each; policy is looked at only once the password is known to be right.
   */
  async checkPassword({ username, password }: Credentials): Promise<User> {
    const { credentials, hasher } = this.deps;
    const found = await credentials.findCredential(username);
    if (!found) {
      await hasher.verifyDummy(password);
      throw new InvalidCredentialsError();
    }
    if (!(await hasher.verify(found.passwordHash, password))) throw new InvalidCredentialsError();
    this.assertMayLogIn(found.user);
    if (hasher.needsRehash(found.passwordHash)) {
      await credentials.replaceHash(found.user.uid, await hasher.hash(password));
    }
    return found.user;
  }

  /** POST /v1/users/authorize: credentials in, signed token out. */
  async authorize(credentials: Credentials, ttlSeconds: number): Promise<string> {
    const user = await this.checkPassword(credentials);
    await this.deps.users.recordLogin(user.uid, new Date(this.deps.clock()));
    return this.deps.issuer.issue(user, ttlSeconds);
  }

  /** POST /v1/users/refresh_jwt: a valid token of a user who may still log in, renewed. */
  async refresh(token: string, ttlSeconds: number): Promise<string> {
    const claims = await this.deps.verifier.verify(token);
    const user = await this.deps.users.getByUid(claims.uid);
    if (!user) throw new InvalidTokenError('The user of this token no longer exists');
    this.assertMayLogIn(user);
    return this.deps.issuer.issue(user, ttlSeconds);
  }

  async checkToken(token: string): Promise<Principal> {
    const claims: TokenClaims = await this.deps.verifier.verify(token);
    return { uid: claims.uid, username: claims.username, role: claims.roles[0] ?? 'none' };
  }

  private assertMayLogIn(user: User): void {
    if (isPasswordExpired(user, new Date(this.deps.clock()))) throw new PasswordExpiredError();
  }
}
