import type { Deadline } from '../../deadline.js';
import { StoreUnavailableError } from '../../errors.js';

/** A store call of a login, answered within the login's deadline or not at all. */
export function inTime<T>(deadline: Deadline, call: Promise<T>): Promise<T> {
  return deadline.race(call, () => new StoreUnavailableError('no answer within the login deadline'));
}
