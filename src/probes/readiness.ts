import { NotReadyError, StartingError } from '../errors.js';

export type Readiness = () => Promise<{ store: boolean; redis?: boolean }>;

/**
 * What /readyz answers — on the API port and on the management listener alike: not before
 * the process has started serving, and only while the store (and Redis) answer.
 */
export async function readyState(started: boolean, readiness: Readiness) {
  if (!started) throw new StartingError();
  const checks = await readiness();
  const down = Object.entries(checks).filter(([, up]) => !up).map(([name]) => name);
  if (down.length > 0) throw new NotReadyError(`Not ready: ${down.join(' and ')} unreachable`);
  return { status: 'ready' as const, ...checks };
}
