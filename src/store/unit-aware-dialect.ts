import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { currentUnit, type Unit } from '../unit-of-work.js';

/** A statement that changes rows, or takes a lock: it joins the unit's transaction (a read before the first one does not). */
function writes(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind === 'SelectQueryNode') return /\bfor\s+(update|share)\b/i.test(query.sql);
  if (kind === 'RawNode') return !/^\s*(select|with|pragma|explain)\b/i.test(query.sql);
  return true;
}

/**
 * A dialect whose statements, inside a unit of work (src/unit-of-work.ts), share the unit's one
 * transaction: it begins at the unit's first write (reads before it take a connection of their
 * own, as outside a unit), every statement after it runs on it, and the unit commits or rolls it
 * back at its end. A transaction a store opens inside a unit is a savepoint of the unit's.
 * Outside a unit nothing changes.
 */
export function unitAware(dialect: Dialect, begin: TransactionSettings = {}): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new UnitAwareDriver(dialect.createDriver(), begin),
  };
}

/** The connection a unit's code is handed: each statement goes to the unit's transaction, or alone. */
class UnitConnection implements DatabaseConnection {
  /** The savepoints of the store transactions open on it, innermost last. */
  readonly savepoints: string[] = [];

  constructor(
    private readonly driver: UnitAwareDriver,
    readonly unit: Unit,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A statement of the unit's work still running after the unit ended goes alone.
    if (!this.unit.open || (!this.unit.transactions.has(this.driver) && !writes(query)))
      return this.driver.alone(query);
    return (await this.driver.transactionOf(this.unit)).executeQuery(query);
  }

  // biome-ignore lint/correctness/useYield: no store streams rows; a unit refuses to
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported inside a unit of work');
  }
}

/** Savepoint names, unique in the process. */
let savepoints = 0;

class UnitAwareDriver implements Driver {
  /** The connection each unit's transaction holds, once begun. */
  private readonly held = new WeakMap<Unit, Promise<DatabaseConnection>>();

  constructor(
    private readonly real: Driver,
    private readonly begin: TransactionSettings,
  ) {}

  init(): Promise<void> {
    return this.real.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const unit = currentUnit();
    return unit ? new UnitConnection(this, unit) : this.real.acquireConnection();
  }

  /** A statement on a connection of its own, as outside a unit. */
  async alone<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const connection = await this.real.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await this.real.releaseConnection(connection);
    }
  }

  /** The unit's transaction on this store, begun now if it was not. */
  transactionOf(unit: Unit): Promise<DatabaseConnection> {
    const held = this.held.get(unit);
    if (held) return held;
    const opening = this.open();
    this.held.set(unit, opening);
    // Known to the unit before it is open: a unit that ends while it opens still ends it.
    let ended = false;
    const end = async (how: 'commit' | 'rollback') => {
      if (ended) return; // once: a rollback after a failed commit has nothing left to end
      ended = true;
      const connection = await opening.catch((err) => {
        if (how === 'commit') throw err;
      });
      if (!connection) return;
      try {
        if (how === 'commit') await this.real.commitTransaction(connection);
        else await this.real.rollbackTransaction(connection);
      } catch (err) {
        // A failed commit leaves the transaction open on the connection: ended before it goes back.
        if (how === 'commit') await this.real.rollbackTransaction(connection).catch(() => {});
        throw err;
      } finally {
        await this.real.releaseConnection(connection);
      }
    };
    unit.transactions.set(this, { commit: () => end('commit'), rollback: () => end('rollback') });
    return opening;
  }

  private async open(): Promise<DatabaseConnection> {
    const connection = await this.real.acquireConnection();
    try {
      await this.real.beginTransaction(connection, this.begin);
    } catch (err) {
      await this.real.releaseConnection(connection);
      throw err;
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (!(connection instanceof UnitConnection)) return this.real.beginTransaction(connection, settings);
    await this.nest(connection, 'begin');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof UnitConnection)) return this.real.commitTransaction(connection);
    await this.nest(connection, 'release');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof UnitConnection)) return this.real.rollbackTransaction(connection);
    await this.nest(connection, 'rollback');
  }

  /** A store's own transaction inside a unit: a savepoint, so that its rollback undoes its part alone. */
  private async nest(connection: UnitConnection, step: 'begin' | 'release' | 'rollback'): Promise<void> {
    const transaction = await this.transactionOf(connection.unit);
    const run = (text: string) => transaction.executeQuery(CompiledQuery.raw(text));
    if (step === 'begin') {
      const name = `tessera_${++savepoints}`;
      connection.savepoints.push(name);
      await run(`savepoint ${name}`);
      return;
    }
    const name = connection.savepoints.pop();
    if (step === 'rollback') await run(`rollback to savepoint ${name}`);
    await run(`release savepoint ${name}`);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof UnitConnection)) await this.real.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.real.destroy();
  }
}
