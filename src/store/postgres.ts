import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { Deadline, within } from '../deadline.js';
import { StoreUnavailableError } from '../errors.js';
import type { Database } from './schema.js';
import { unitAware } from './unit-aware-dialect.js';

/**
 * How long a transaction may sit idle between its statements: a unit of work does its slow parts
 * (hashing, a directory's answer) before its first write, so this is a node that stopped, not work.
 */
const IDLE_IN_TRANSACTION_MS = 10_000;

export interface PostgresTimeouts {
  /** The time a store call gets, from taking a connection to the last answer on it. */
  callMs: number;
  /** PostgreSQL's own statement_timeout: no statement runs longer on the server. */
  statementMs: number;
}

/**
 * PostgreSQL through a pool whose every wait is bounded: a connection is handed out, and its
 * first statement answered, within `callMs` of asking for the connection; each later statement
 * on it (a transaction's, which a unit of work holds across the rest of its work and a queue for
 * a lock) within `callMs` of its own (a login also races each store call against its own deadline). Whatever makes the store unusable —
 * refused, reset, partitioned, shut down, timed out — leaves here as StoreUnavailableError,
 * and a connection that met such a fault is destroyed rather than handed out again.
 */
export async function openPostgres(url: string, timeouts: PostgresTimeouts): Promise<Kysely<Database>> {
  const { default: pgModule } = await import('pg'); // loaded only by nodes that use it
  const pool = new pgModule.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: timeouts.callMs,
    statement_timeout: timeouts.statementMs,
    // A transaction left open (a unit of work whose node stopped answering) is ended by the server.
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    idleTimeoutMillis: 30_000,
  });
  // A lost server must fail the queries in flight, not the process: pg also emits the loss
  // as an 'error' event, on idle clients through the pool and on busy ones directly.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const DatabaseError = pgModule.DatabaseError;
  const classify = (err: unknown) =>
    err instanceof DatabaseError && !isUnavailableState(err.code) ? err : unavailable(err);
  return new Kysely<Database>({
    dialect: unitAware(new PostgresDialect({ pool: new DeadlinePool(pool, timeouts.callMs, classify) }), {
      isolationLevel: 'read committed',
    }),
  });
}

/** SQLSTATE classes that say the server cannot serve now, not that the request was wrong. */
function isUnavailableState(code: string | undefined): boolean {
  return /^(08|53|57|58)/.test(code ?? '');
}

function unavailable(cause: unknown): StoreUnavailableError {
  return cause instanceof StoreUnavailableError ? cause : new StoreUnavailableError(cause);
}

class DeadlinePool implements PostgresPool {
  private readonly clients = new WeakMap<pg.PoolClient, DeadlineClient>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly callMs: number,
    private readonly classify: (err: unknown) => unknown,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const deadline = Deadline.after(this.callMs);
    let raw: pg.PoolClient;
    try {
      raw = await within(
        this.pool.connect(),
        deadline.remaining(),
        () => new StoreUnavailableError('no connection to the store within the time left'),
        (late) => late.release(),
      );
    } catch (err) {
      throw this.classify(err);
    }
    let client = this.clients.get(raw);
    if (!client) this.clients.set(raw, (client = new DeadlineClient(raw, this.callMs, this.classify)));
    client.deadline = deadline;
    return client as unknown as PostgresPoolClient;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

class DeadlineClient {
  /** The first statement's, from asking for the connection; the next ones get callMs each. */
  deadline?: Deadline;
  private broken = false;

  constructor(
    private readonly raw: pg.PoolClient,
    private readonly callMs: number,
    private readonly classify: (err: unknown) => unknown,
  ) {}

  // Kysely streams through cursors only when given one; Tessera never does.
  async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    const ms = Math.floor((this.deadline ?? Deadline.after(this.callMs)).remaining());
    this.deadline = undefined;
    if (this.broken || ms <= 0) {
      this.broken = true;
      throw new StoreUnavailableError('no time was left to reach the store');
    }
    try {
      // query_timeout fails the call on our side when the server does not answer (a
      // partition); statement_timeout, set per connection, stops the work on its side.
      const result = await this.raw.query({
        text: sql,
        values: parameters as unknown[],
        query_timeout: ms,
      } as pg.QueryConfig);
      return result as unknown as PostgresQueryResult<R>;
    } catch (err) {
      const known = this.classify(err);
      if (known instanceof StoreUnavailableError) this.broken = true;
      throw known;
    }
  }

  release(): void {
    // A connection that timed out or failed may still have a query in flight or be
    // half-closed: destroy it instead of handing it to the next caller.
    this.raw.release(this.broken || undefined);
    this.broken = false;
  }
}
