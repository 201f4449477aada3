import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events.js';
import { RevocationList } from '../../src/tokens/revocation-list.js';
import type { RevocationEvent, RevocationStore } from '../../src/tokens/revocation-store.js';

/** A store whose events become visible in the order the test says: as commits of PostgreSQL transactions do, not in id order. */
function storeOf(visible: RevocationEvent[]): RevocationStore {
  return {
    tokenEpoch: async () => 0,
    revokeToken: async () => {},
    eventsAfter: async (id) => visible.filter((e) => e.id > id).sort((a, b) => a.id - b.id),
    eventsIn: async (ids) => visible.filter((e) => ids.includes(e.id)),
    feedAfter: async () => [],
    lastEventId: async () => 0,
    liveTokens: async () => [],
    prune: async () => {},
  };
}

const event = (id: number, uid: number): RevocationEvent => ({ id, uid, jti: null, sid: null, expiresAt: null });

describe('the revocation list', () => {
  it('reads an event that became visible after a later one (a transaction that committed late)', async () => {
    const visible = [event(1, 10), event(3, 30)];
    const events = new EventHub();
    const changed: number[] = [];
    events.on('userChanged', (uid) => changed.push(uid));
    const list = new RevocationList(storeOf(visible), () => Date.now(), events);
    await list.poll();
    expect(changed).toEqual([10, 30]);
    visible.push(event(2, 20)); // id 2 commits after id 3 was read
    await list.poll();
    expect(changed).toEqual([10, 30, 20]);
    await list.poll();
    expect(changed).toEqual([10, 30, 20]); // and only once
  });
});
