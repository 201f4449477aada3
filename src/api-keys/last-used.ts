import type { Clock } from '../clock.js';
import type { ApiKeyStore } from './api-key-store.js';

/** A key's last_used is written at most this often a node, however many calls it makes. */
const COALESCE_MS = 60_000;
/** Keys whose last write a node remembers; past it, it starts again (a write more each). */
const MAX_TRACKED = 10_000;

/** Moves a key's last_used forward as it is used: at most one write a minute a key a node. */
export class LastUsed {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly store: Pick<ApiKeyStore, 'touch'>,
    private readonly clock: Clock,
  ) {}

  touch(keyId: string): void {
    const now = this.clock();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < COALESCE_MS) return;
    if (this.written.size >= MAX_TRACKED) this.written.clear();
    this.written.set(keyId, now);
    this.store.touch(keyId, new Date(now)).catch(() => this.written.delete(keyId)); // tried again at the next use
  }
}
