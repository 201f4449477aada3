import type { Actor } from '../access/actor.js';
import type { RequestContext } from '../audit/audit-log.js';
import { assertMayManage } from './account-access.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { mustGet } from './account-target.js';
import type { User } from './user.js';

/** Lifting a user's lockout at once (POST /v1/users/{uid}/unlock, `tessera users unlock`). */
export class UserUnlock {
  constructor(private readonly deps: Pick<AccountDeps, 'users' | 'lockout' | 'audit'>) {}

  async unlock(actor: Actor | null, uid: number, ctx: RequestContext): Promise<User> {
    const target = await mustGet(this.deps.users, uid);
    assertMayManage(actor, target);
    await this.deps.lockout.unlock(target);
    auditChange(this.deps.audit, ctx, actor, target, { event: 'unlock' });
    return mustGet(this.deps.users, uid);
  }
}
