import type { Selectable, Transaction } from 'kysely';
import { LdapFieldsError, UserAlreadyExistsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { Database, LdapMappingsTable } from '../store/schema.js';
import { serialized } from '../store/serialized.js';
import { usernameKey } from '../users/username.js';
import type { LdapMapping, LdapMappingInput, LdapMappingStore } from './ldap-mapping.js';

const toMapping = (row: Selectable<LdapMappingsTable>): LdapMapping => ({
  uid: row.uid,
  name: row.name,
  dn: row.dn,
  role_uids: JSON.parse(row.role_uids) as number[],
  email: row.email ?? '',
  email_alerts: Boolean(row.email_alerts),
  cluster_email_alerts: Boolean(row.cluster_email_alerts),
  ...(row.bdbs_email_alerts !== null && { bdbs_email_alerts: JSON.parse(row.bdbs_email_alerts) as string[] }),
});

const columns = (m: LdapMappingInput) => ({
  name: m.name,
  name_key: usernameKey(m.name),
  dn: m.dn,
  role_uids: JSON.stringify(m.role_uids),
  email: m.email || null,
  email_alerts: m.email_alerts ? 1 : 0,
  cluster_email_alerts: m.cluster_email_alerts ? 1 : 0,
  bdbs_email_alerts: m.bdbs_email_alerts === undefined ? null : JSON.stringify(m.bdbs_email_alerts),
});

const nameTaken = () =>
  new UserAlreadyExistsError('name_already_exists', 'An LDAP mapping with this name already exists');

/** The roles a mapping gives all exist, checked where a role's deletion is checked too (a serialized transaction). */
async function rolesExist(trx: Transaction<Database>, roleUids: readonly number[]): Promise<void> {
  const found = new Set(
    (
      await trx
        .selectFrom('roles')
        .select('uid')
        .where('uid', 'in', [...roleUids])
        .execute()
    ).map((r) => r.uid),
  );
  const missing = roleUids.filter((r) => !found.has(r));
  if (missing.length > 0) throw new LdapFieldsError(`No role has uid ${missing.join(', ')}`, 'invalid_role_uids_param');
}

/** LDAP mappings over any Kysely dialect. */
export class KyselyLdapMappingStore implements LdapMappingStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<LdapMapping[]> {
    return (await this.db.selectFrom('ldap_mappings').selectAll().orderBy('uid').execute()).map(toMapping);
  }

  async get(uid: number): Promise<LdapMapping | undefined> {
    const row = await this.db.selectFrom('ldap_mappings').selectAll().where('uid', '=', uid).executeTakeFirst();
    return row && toMapping(row);
  }

  async create(mapping: LdapMappingInput): Promise<LdapMapping> {
    const row = await serialized(this.db, async (trx) => {
      await rolesExist(trx, mapping.role_uids);
      return trx
        .insertInto('ldap_mappings')
        .values(columns(mapping))
        .onConflict((oc) => oc.column('name_key').doNothing())
        .returningAll()
        .executeTakeFirst();
    });
    if (!row) throw nameTaken();
    return toMapping(row);
  }

  async update(uid: number, mapping: LdapMappingInput): Promise<void> {
    try {
      await serialized(this.db, async (trx) => {
        await rolesExist(trx, mapping.role_uids);
        await trx.updateTable('ldap_mappings').set(columns(mapping)).where('uid', '=', uid).execute();
      });
    } catch (err) {
      if (/unique|duplicate/i.test(String((err as Error).message))) throw nameTaken();
      throw err;
    }
  }

  async delete(uid: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ldap_mappings').where('uid', '=', uid).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
