import type { Actor } from '../access/actor.js';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import { Deadline } from '../deadline.js';
import type { UserStore } from '../users/user-store.js';
import { Directory, type PassedOver } from './directory.js';
import { type LdapConfig, ldapView, mergeLdapConfig, validateLdapConfig } from './ldap-config.js';
import type { LdapSettings } from './ldap-settings.js';

/**
 * GET/PUT/DELETE /v1/cluster/ldap. A PUT is merged over what is set, checked as a whole, and
 * — when it names a directory — tried (connect, TLS, the service bind) before it is stored:
 * settings that cannot bind are refused with the directory's reason. Any change ends the
 * tokens of every directory user: who they are and what they hold is read again at their
 * next login.
 */
export class LdapService {
  constructor(
    private readonly settings: LdapSettings,
    private readonly users: Pick<UserStore, 'revokeDirectoryUsers'>,
    private readonly passedOver: PassedOver,
    private readonly audit: AuditLog,
  ) {}

  async get(): Promise<LdapConfig> {
    return ldapView(await this.settings.get());
  }

  async put(actor: Actor, patch: Partial<LdapConfig>, ctx: RequestContext): Promise<LdapConfig> {
    const next = validateLdapConfig(mergeLdapConfig(await this.settings.get(), patch));
    // Each URI gets directory_timeout_s to answer: a silent first one is passed over for the next.
    if (next.uris.length > 0)
      await Directory.probe(next, this.passedOver, Deadline.after(next.directory_timeout_s * 1000 * next.uris.length));
    await this.settings.put(next);
    await this.users.revokeDirectoryUsers();
    this.audit.record(ctx, {
      event: 'ldap_config_update',
      outcome: 'success',
      ...actorOf(actor),
      target: 'ldap_config',
      changes: Object.keys(patch),
    });
    return ldapView(next);
  }

  async delete(actor: Actor, ctx: RequestContext): Promise<void> {
    await this.settings.clear();
    await this.users.revokeDirectoryUsers();
    this.audit.record(ctx, {
      event: 'ldap_config_delete',
      outcome: 'success',
      ...actorOf(actor),
      target: 'ldap_config',
    });
  }
}
