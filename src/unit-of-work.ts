import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One change and what it records, made together: a request that changes the cluster runs in a
 * unit, and every statement it writes — its own, and the events its audit records put in the
 * outbox (src/siem/) — commits in one transaction or not at all (store/unit-aware-dialect.ts
 * makes the transaction at the unit's first write, so that what a change does before it writes,
 * a password hashed or a directory asked, holds no lock). What must wait for the commit (the
 * caches told to forget) waits for it.
 */
export interface Unit {
  /** Open while its work runs; a statement of work left running after it is closed goes on alone. */
  open: boolean;
  /** Run before the commit, inside the transaction (the outbox's rows). */
  readonly beforeCommit: (() => Promise<void>)[];
  /** Run after the commit; dropped by a rollback. */
  readonly afterCommit: (() => void)[];
  /** Run after a rollback instead (what the unit's refusals recorded outlives it). */
  readonly afterRollback: (() => void)[];
  /** The transactions the unit began, one a store, committed or rolled back together at its end. */
  readonly transactions: Map<object, { commit(): Promise<void>; rollback(): Promise<void> }>;
}

const units = new AsyncLocalStorage<Unit>();
/**
 * Units running now. Node 20's AsyncLocalStorage hooks every promise while it is enabled (a few
 * per cent of a token read's CPU): it is enabled by the first unit and disabled again when the
 * last one ends, so that sign-ins and reads between changes pay nothing.
 */
let running = 0;

/** The unit this code runs in, while it is open. */
export function currentUnit(): Unit | undefined {
  const unit = units.getStore();
  return unit?.open ? unit : undefined;
}

/**
 * Runs `fn` so that what it writes stands whatever becomes of the current unit (a lockout and its
 * event, which the refusal they come with rolls back): outside the unit when it has not written
 * yet; else inside it now (on SQLite a statement alone would wait for the one connection the unit
 * holds) and, should the unit be rolled back, again after it. `fn` must be safe to run twice.
 */
export function outsideUnit<T>(fn: () => Promise<T>): Promise<T> {
  const unit = currentUnit();
  if (!unit) return fn();
  if (unit.transactions.size === 0) return units.exit(fn);
  unit.afterRollback.push(() => void fn().catch(() => {}));
  return fn();
}

/**
 * `fn` once the current unit is over — after its commit, and after its rollback too when
 * `alsoRolledBack` (a refusal it recorded happened all the same) — or now when there is none.
 */
export function whenSettled(fn: () => void, alsoRolledBack: boolean): void {
  const unit = currentUnit();
  if (!unit) {
    fn();
    return;
  }
  unit.afterCommit.push(fn);
  if (alsoRolledBack) unit.afterRollback.push(fn);
}

/** `fn` after the current unit commits, or now when there is none. */
export function afterCommit(fn: () => void): void {
  const unit = currentUnit();
  if (unit) unit.afterCommit.push(fn);
  else fn();
}

/**
 * Runs `work` as one unit: its writes and what `beforeCommit` adds commit when it returns,
 * roll back when it throws. Nested, the outer unit is the one.
 */
export async function atomically<T>(work: () => Promise<T>): Promise<T> {
  if (currentUnit()) return work();
  const unit: Unit = { open: true, beforeCommit: [], afterCommit: [], afterRollback: [], transactions: new Map() };
  running++;
  return units
    .run(unit, async () => {
      let result: T;
      try {
        result = await work();
        // A hook may add another (an event recorded by a hook): run until none is left.
        for (let hook = unit.beforeCommit.shift(); hook; hook = unit.beforeCommit.shift()) await hook();
        unit.open = false;
        for (const transaction of unit.transactions.values()) await transaction.commit();
      } catch (err) {
        unit.open = false;
        await Promise.allSettled([...unit.transactions.values()].map((t) => t.rollback()));
        for (const fn of unit.afterRollback) fn();
        throw err;
      }
      for (const fn of unit.afterCommit) fn();
      return result;
    })
    .finally(() => {
      if (--running === 0) units.disable();
    });
}
