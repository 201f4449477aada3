import type { Actor } from '../access/actor.js';
import type { RequestContext } from '../audit/audit-log.js';
import { LastAdminError } from '../errors.js';
import { assertMayManage, guardFor } from './account-access.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { mustGet } from './account-target.js';

/** Deleting a user (DELETE /v1/users/{uid}, `tessera users delete`); never the last admin. */
export class UserDeletion {
  constructor(private readonly deps: Pick<AccountDeps, 'users' | 'audit'>) {}

  async delete(actor: Actor | null, uid: number, ctx: RequestContext): Promise<void> {
    const target = await mustGet(this.deps.users, uid);
    assertMayManage(actor, target);
    if (target.rights.includes('admin') && (await this.deps.users.countAdmins()) <= 1) {
      throw new LastAdminError('delete_last_admin_not_allowed');
    }
    await this.deps.users.delete(uid, guardFor(actor, target));
    auditChange(this.deps.audit, ctx, actor, target, { event: 'user_delete' });
  }
}
