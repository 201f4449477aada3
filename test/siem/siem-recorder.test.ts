import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/audit-log.js';
import type { Outbox } from '../../src/siem/outbox.js';
import { SiemRecorder } from '../../src/siem/siem-recorder.js';
import type { SiemSettings } from '../../src/siem/siem-settings.js';

const sink = { name: 'siem', type: 'file', format: 'json', path: 'events.jsonl' } as const;
const settings = { freshSinks: () => [sink], get: async () => ({ sinks: [sink] }) } as unknown as SiemSettings;
const refusal = (username: string): AuditRecord => ({
  event: 'authorize',
  outcome: 'failure',
  username,
  reason: 'invalid_credentials',
});

describe('SiemRecorder, with more waiting than memory holds', () => {
  it('counts every attempt it could not keep, a folded refusal with all its repeats', async () => {
    // The store away: nothing is written, and nothing reaches a sink.
    const outbox = {
      add: async () => {
        throw new Error('store away');
      },
    } as unknown as Outbox;
    const recorder = new SiemRecorder(outbox, settings, 'node-a', () => 0);
    recorder.sendNow = async () => {
      throw new Error('sink away');
    };
    const ctx = { ip: '10.0.0.1', requestId: 'r' };
    for (let i = 0; i < 50_000; i++) recorder.record(refusal(`guess-${i}`), ctx);
    await recorder.flush(); // fails: the 50,000 are kept for the next one, and the queue is full
    expect(recorder.lost).toBe(0);
    for (let i = 0; i < 1000; i++) recorder.record(refusal('victim'), ctx);
    expect(recorder.lost).toBe(1000); // each attempt, not one event whose repeats vanish
    await recorder.close().catch(() => {});
  });
});
