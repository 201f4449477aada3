import type { Clock } from '../../clock.js';
import { SsoRefusedError, UserAlreadyExistsError } from '../../errors.js';
import type { ClientThrottle } from '../../guard/client-throttle.js';
import type { RoleStore } from '../../roles/role-store.js';
import type { SamlStore } from '../../sso/saml-store.js';
import type { Asserted, ServiceProvider } from '../../sso/service-provider.js';
import type { SsoSettings } from '../../sso/sso-settings.js';
import type { User } from '../../users/user.js';
import type { CredentialStore, UserStore } from '../../users/user-store.js';
import { type Attempt, NOT_MINE, type NotMine, type Proof, type Realm, type Verdict } from './realm.js';

const refusedWith = (error: SsoRefusedError): Verdict => ({
  outcome: 'refused',
  error,
  guess: false,
  reason: error.auditReason ?? error.code,
});

/**
 * SAML single sign-on (the product's SSO, 8.0.6+): an identity provider's signed answer,
 * verified by the service provider, names a person by email. The account of that email
 * signs in, whatever its way in otherwise (its roles kept, as the product does, and its
 * passwords ended unless it is an admin's); a person
 * without one gets a user made at the first sign-in (`auth_method: "sso"`, its email as its
 * name) with the roles redisRoleMapping gives — none that exist: no user, and a message.
 */
export class SsoRealm implements Realm {
  constructor(
    private readonly settings: Pick<SsoSettings, 'get'>,
    private readonly provider: Pick<ServiceProvider, 'verify'>,
    private readonly users: Pick<UserStore, 'findByUsername'> & Pick<CredentialStore, 'create' | 'moveToSso'>,
    private readonly roles: Pick<RoleStore, 'list'>,
    /** Where the identity provider's session is kept, for the sign-out that ends it there too. */
    private readonly sessions: Pick<SamlStore, 'saveSession'>,
    /** Each answer is checked in full: counted per address as a login is. */
    private readonly throttle: Pick<ClientThrottle, 'check'>,
    private readonly clock: Clock,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'saml' && (await this.settings.get()).control_plane;
  }

  async authenticate(proof: Proof, { purpose, ctx, trail }: Attempt): Promise<Verdict> {
    if (proof.kind !== 'saml') return NOT_MINE;
    trail.realm = 'sso';
    if (!(await this.supports(proof)))
      return refusedWith(
        new SsoRefusedError(
          'sso_refused',
          'SSO is off on this cluster: sign in with a username and password',
          'sso off',
        ),
      );
    if (purpose === 'login') await this.throttle.check(ctx.ip);
    let person: Asserted;
    try {
      person = await this.provider.verify(proof.response, proof.acsPath);
    } catch (err) {
      if (err instanceof SsoRefusedError) return refusedWith(err);
      throw err;
    }
    const found = (await this.users.findByUsername(person.email)) ?? (await this.provision(person));
    if ('outcome' in found) return found;
    let user = found;
    const realm = user.realm;
    if (realm !== 'local' && realm !== 'sso') {
      return refusedWith(
        new SsoRefusedError(
          'sso_refused',
          `${person.email} is a user who signs in another way (${realm === 'ldap' ? 'the LDAP directory' : 'a client certificate'}): ask an admin`,
          `the account of ${person.email} is in the ${realm} realm`,
        ),
      );
    }
    // The account is SSO's from its first sign-in on: whoever made it with a password (someone who
    // planted it before the person's first sign-in, say) no longer holds a way in. An admin keeps
    // its password, as the product's enforcement exempts admins: the way in when the IdP is down.
    const takenOver = user.authMethod === 'regular' && !user.rights.includes('admin');
    if (takenOver) user = await this.users.moveToSso(user.uid);
    await this.sessions.saveSession(user.uid, person.session);
    proof.browserHash = person.browserHash;
    return {
      outcome: 'success',
      realm: 'sso',
      user,
      rememberMs: 0,
      ...(takenOver && {
        changed: {
          changes: ['auth_method', 'password'],
          reason: 'first sso sign-in: its passwords and their sessions ended',
        },
      }),
    };
  }

  /** An SSO user signs in again while SSO is on; its tokens end when it is turned off. */
  async refresh(user: User): Promise<User | undefined | NotMine> {
    if (user.realm !== 'sso') return NOT_MINE;
    return (await this.settings.get()).control_plane ? user : undefined;
  }

  async lookup(): Promise<undefined> {
    return undefined;
  }

  /** The user a first sign-in makes, with the roles the identity provider maps it to that exist here. */
  private async provision(person: Asserted): Promise<User | Verdict> {
    const known = new Set((await this.roles.list()).map((r) => r.uid));
    const roleUids = [...new Set(person.roleUids)].filter((uid) => known.has(uid));
    if (roleUids.length === 0) {
      return refusedWith(
        new SsoRefusedError(
          'sso_no_role',
          `${person.email} has no role on this cluster: ask your identity provider's administrator to map you to one (redisRoleMapping, role uids from GET /v1/roles)`,
          `no role for ${person.email} (redisRoleMapping: ${person.roleUids.join(',') || 'none'})`,
        ),
      );
    }
    try {
      return await this.users.create({
        name: person.email,
        email: person.email,
        roleUids,
        authMethod: 'sso',
        emailAlerts: true,
        clusterEmailAlerts: false,
        bdbsEmailAlerts: null,
        passwordIssueDate: new Date(this.clock()),
      });
    } catch (err) {
      // Made meanwhile by another sign-in of the same person: that user it is.
      if (err instanceof UserAlreadyExistsError) {
        const made = await this.users.findByUsername(person.email);
        if (made) return made;
      }
      throw err;
    }
  }
}
