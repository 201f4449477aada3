import { describe, expect, it } from 'vitest';
import { instantOf } from '../../src/event-log/event-time.js';

describe('instantOf: the times GET /v1/logs and tessera events take', () => {
  it("reads a time without a zone as UTC, whatever the process's zone", () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata'; // +05:30: a local reading would be hours off
    try {
      expect(instantOf('2026-11-27T10:00:00')).toBe(Date.parse('2026-11-27T10:00:00Z'));
      expect(instantOf('2026-11-27T10:00')).toBe(Date.parse('2026-11-27T10:00:00Z'));
      expect(instantOf('2026-11-27')).toBe(Date.parse('2026-11-27T00:00:00Z'));
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('reads a zone, a fraction, and the first years as they are', () => {
    expect(instantOf('2026-11-27T10:00:00Z')).toBe(Date.parse('2026-11-27T10:00:00Z'));
    expect(instantOf('2026-11-27T10:00:00.25+01:00')).toBe(Date.parse('2026-11-27T09:00:00.250Z'));
    expect(instantOf('2026-11-27T10:00:00-0530')).toBe(Date.parse('2026-11-27T15:30:00Z'));
    expect(instantOf('0026-01-01T00:00:00Z')).toBe(Date.parse('0026-01-01T00:00:00Z'));
    expect(instantOf('9999-12-31T23:59:59Z')).toBe(Date.parse('9999-12-31T23:59:59Z'));
  });

  it.each([
    'yesterday',
    '2026-02-30T00:00:00',
    '2026-11-27T24:00:00Z',
    '2026-11-25T23:59:60Z',
    '2026-11-27T10:00:00+24:00',
    '2026-11-27T10:00:00junk',
    ' 2026-11-27T10:00:00Z',
    '9999-12-31T23:59:59-01:00',
    '0000-01-01T00:00:00+01:00',
  ])('names no time with %j', (text) => {
    expect(instantOf(text)).toBeUndefined();
  });
});
