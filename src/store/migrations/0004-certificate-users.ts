import type { Kysely, Migration } from 'kysely';

/** Users who log in with a client certificate: the subject line (RFC 2253) their certificate must have. */
export function certificateUsers(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('certificate_subject_line', 'text').execute();
      await db.schema
        .createIndex('users_certificate_subject_line')
        .on('users')
        .column('certificate_subject_line')
        .unique()
        .execute();
    },
  };
}
