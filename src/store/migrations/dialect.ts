/** The SQL dialects the migrations are written for. */
export type Dialect = 'sqlite' | 'postgres';
