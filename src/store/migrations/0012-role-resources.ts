import type { Kysely, Migration } from 'kysely';

/**
 * A role's `resources` (the product's role object, 8.2): the databases a db_member or db_viewer
 * role is limited to, as JSON (`[{"type": "db", "uids": ["1", "2"]}]`); null, as every role
 * so far: every database.
 */
export function roleResources(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('roles').addColumn('resources', 'text').execute();
    },
  };
}
