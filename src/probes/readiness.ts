import { NotReadyError, StartingError } from '../errors.js';

export type Readiness = () => Promise<{
  store: boolean;
  redis?: boolean;
  /** The store's issuer, when a move of it left this node's behind (its tokens no longer count). */
  issuerMovedTo?: string;
}>;

/**
 * What /readyz answers — on the API port and on the management listener alike: not before
 * the process has started serving, and only while the store (and Redis) answer.
 */
export async function readyState(started: boolean, readiness: Readiness) {
  if (!started) throw new StartingError();
  const { issuerMovedTo, ...checks } = await readiness();
  if (issuerMovedTo)
    throw new NotReadyError(
      `Not ready: the cluster's tokens moved to the issuer ${issuerMovedTo}, and this node's no longer count: restart it with --public-url ${issuerMovedTo}`,
    );
  const down = Object.entries(checks)
    .filter(([, up]) => !up)
    .map(([name]) => name);
  if (down.length > 0) throw new NotReadyError(`Not ready: ${down.join(' and ')} unreachable`);
  return { status: 'ready' as const, ...checks };
}
