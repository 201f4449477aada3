import type { Clock } from '../clock.js';

/** How long a process trusts its copy of a setting before reading the store again. */
export const SETTING_CACHE_MS = 1000;

/**
 * A setting read from the store at most once a second: a read costs no store round trip, a
 * change made here holds at once (`set`), one made by another node within a second.
 */
export class SettingCache<T> {
  private cached?: { value: T; at: number };

  constructor(
    private readonly load: () => Promise<T>,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<T> {
    return this.fresh() ?? (this.cached = { value: await this.load(), at: this.clock() }).value;
  }

  /** The value when it was read within the second, without waiting; else undefined (`get` it). */
  fresh(): T | undefined {
    const now = this.clock();
    return this.cached && now >= this.cached.at && now - this.cached.at < SETTING_CACHE_MS
      ? this.cached.value
      : undefined;
  }

  /** The setting as the store has it now, whatever was read before (a check that must not run on a copy up to a second old). */
  async reload(): Promise<T> {
    const value = await this.load();
    this.set(value);
    return value;
  }

  /** What this process just wrote: trusted from now on, without reading it back. */
  set(value: T): void {
    this.cached = { value, at: this.clock() };
  }
}
