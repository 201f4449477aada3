/** Milliseconds since the epoch. Injected so that tests can move time instead of waiting. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
