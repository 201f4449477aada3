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
    const now = this.clock();
    if (!this.cached || now - this.cached.at >= SETTING_CACHE_MS || now < this.cached.at) {
      this.cached = { value: await this.load(), at: now };
    }
    return this.cached.value;
  }

  /** What this process just wrote: trusted from now on, without reading it back. */
  set(value: T): void {
    this.cached = { value, at: this.clock() };
  }
}
