import type { ApiKeyService } from '../api-keys/api-key-service.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Callers } from '../auth/callers.js';
import type { Logins } from '../auth/logins.js';
import type { SsoSignIn } from '../auth/sso-sign-in.js';
import type { ApiCertificateService } from '../certs/api-certificate-service.js';
import type { CertificateTrust } from '../certs/certificate-trust.js';
import type { KeptCertificateService } from '../certs/kept-certificate-service.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { EventLogStore } from '../event-log/event-log.js';
import type { EventLogWriter } from '../event-log/event-log-writer.js';
import type { LdapMappingService } from '../ldap/ldap-mapping-service.js';
import type { LdapService } from '../ldap/ldap-service.js';
import type { Metrics } from '../metrics/metrics.js';
import type { MfaService } from '../mfa/mfa-service.js';
import type { ClusterSettings } from '../policy/cluster-settings.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { RoleService } from '../roles/role-service.js';
import type { SessionService } from '../sessions/session-service.js';
import type { SiemService } from '../siem/siem-service.js';
import type { SsoService } from '../sso/sso-service.js';
import type { KeyRing } from '../tokens/key-ring.js';
import type { RevocationStore } from '../tokens/revocation-store.js';
import type { PasswordChanges } from '../users/password-changes.js';
import type { UserCreation } from '../users/user-creation.js';
import type { UserDeletion } from '../users/user-deletion.js';
import type { UserReadCache } from '../users/user-read-cache.js';
import type { UserStore } from '../users/user-store.js';
import type { UserUnlock } from '../users/user-unlock.js';
import type { UserUpdate } from '../users/user-update.js';

/**
 * What the HTTP layer uses: the use cases and the few readers its routes need. A route
 * takes the ones it names (`Pick<HttpServices, …>`); the composition root (tessera.ts)
 * provides them all, and nothing here knows how it made them.
 */
export interface HttpServices {
  config: Config;
  clock: Clock;
  metrics: Metrics;
  audit: AuditLog;
  callers: Callers;
  logins: Logins;
  userCreation: UserCreation;
  userUpdate: UserUpdate;
  passwordChanges: PasswordChanges;
  userUnlock: UserUnlock;
  userDeletion: UserDeletion;
  sessions: SessionService;
  users: Pick<UserStore, 'list'>;
  userReads: Pick<UserReadCache, 'get' | 'fresh'>;
  roles: RoleService;
  apiKeys: ApiKeyService;
  mfa: MfaService;
  policy: Pick<PolicyService, 'get' | 'fresh'>;
  cluster: ClusterSettings;
  certificateTrust: CertificateTrust;
  apiCertificate: ApiCertificateService;
  keptCertificates: KeptCertificateService;
  sso: SsoService;
  siem: SiemService;
  ssoSignIn: SsoSignIn;
  ldap: LdapService;
  ldapMappings: LdapMappingService;
  keys: KeyRing;
  revocationFeed: Pick<RevocationStore, 'feedAfter'>;
  /** The event log (GET /v1/logs): what is written, and the writer whose queue a read empties first. */
  eventLog: Pick<EventLogStore, 'query'>;
  eventWriter: Pick<EventLogWriter, 'flush'>;
  readiness(): Promise<{ store: boolean; redis?: boolean }>;
}
