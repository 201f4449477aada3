import type { Migration } from 'kysely';
import { initial } from './0001-initial.js';
import { rolesAndUserObject } from './0002-roles-and-user-object.js';
import { ldap } from './0003-ldap.js';
import { certificateUsers } from './0004-certificate-users.js';
import { oneIdentity } from './0005-one-identity.js';
import { sso } from './0006-sso.js';
import { roleNames } from './0007-role-names.js';
import { eventLog } from './0008-event-log.js';
import { sessions } from './0009-sessions.js';
import { rolesOneSource } from './0010-roles-one-source.js';
import { eventLogProductNames } from './0011-event-log-product-names.js';
import { roleResources } from './0012-role-resources.js';
import { apiKeys } from './0013-api-keys.js';
import { secondFactors } from './0014-second-factors.js';
import { siemOutbox } from './0015-siem-outbox.js';
import type { Dialect } from './dialect.js';

export type { Dialect } from './dialect.js';

/**
 * The migrations of a dialect, applied in key order. Each is written once with Kysely's
 * schema builder and told its dialect where the two spell a thing differently. Never edit
 * one that has shipped; add a new one.
 */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-roles-and-user-object': rolesAndUserObject(dialect),
    '0003-ldap': ldap(dialect),
    '0004-certificate-users': certificateUsers(),
    '0005-one-identity': oneIdentity(),
    '0006-sso': sso(),
    '0007-role-names': roleNames(),
    '0008-event-log': eventLog(dialect),
    '0009-sessions': sessions(),
    '0010-roles-one-source': rolesOneSource(dialect),
    '0011-event-log-product-names': eventLogProductNames(),
    '0012-role-resources': roleResources(),
    '0013-api-keys': apiKeys(),
    '0014-second-factors': secondFactors(),
    '0015-siem-outbox': siemOutbox(dialect),
  };
}
