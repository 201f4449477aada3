import { describe, expect, it } from 'vitest';
import type { SiemEvent } from '../../src/siem/siem-event.js';
import { octetCounted, syslogMessageOf } from '../../src/siem/syslog-message.js';

const event = (fields: Partial<SiemEvent> = {}): SiemEvent => ({
  id: '6f1c2a9e-8d0b-4b7e-9a57-0c2f4f1d3e10',
  node: 'tessera-1:4242',
  time: '2024-05-01T10:00:00.123Z',
  type: 'authorize',
  severity: 'INFO',
  ...fields,
});

const body = '{"class_uid":3002,"user":{"name":"alice"}}';

describe('syslogMessageOf: one RFC 5424 message', () => {
  it('has every header field in order, the body after the structured data', () => {
    expect(syslogMessageOf(body, event(), { hostname: 'auth1.example.com' })).toBe(
      `<86>1 2024-05-01T10:00:00.123Z auth1.example.com tessera - authorize - ${body}`,
    );
  });

  it('is authpriv.info (<86>) for INFO, authpriv.warning (<84>) for WARNING', () => {
    expect(syslogMessageOf(body, event({ severity: 'INFO' }), { hostname: 'h' })).toMatch(/^<86>1 /);
    expect(syslogMessageOf(body, event({ severity: 'WARNING' }), { hostname: 'h' })).toMatch(/^<84>1 /);
  });

  it('takes another APP-NAME when given one, "-" when it could not be a header field', () => {
    expect(syslogMessageOf(body, event(), { hostname: 'h', appName: 'tessera-eu' }).split(' ')[3]).toBe('tessera-eu');
    expect(syslogMessageOf(body, event(), { hostname: 'h', appName: 'a'.repeat(49) }).split(' ')[3]).toBe('-');
  });

  it('a MSGID longer than 32 characters, or with a space or non-ASCII, becomes "-"', () => {
    const msgid = (type: string) => syslogMessageOf(body, event({ type }), { hostname: 'h' }).split(' ')[5];
    expect(msgid('a'.repeat(32))).toBe('a'.repeat(32));
    expect(msgid('a'.repeat(33))).toBe('-');
    expect(msgid('user created')).toBe('-');
    expect(msgid('créé')).toBe('-');
    expect(msgid('')).toBe('-');
  });

  it('a HOSTNAME that is empty, has a space, non-ASCII or more than 255 characters becomes "-"', () => {
    const hostname = (name: string) => syslogMessageOf(body, event(), { hostname: name }).split(' ')[2];
    expect(hostname('')).toBe('-');
    expect(hostname('my host')).toBe('-');
    expect(hostname('hôte')).toBe('-');
    expect(hostname('h'.repeat(256))).toBe('-');
    expect(hostname('h'.repeat(255))).toBe('h'.repeat(255));
    expect(hostname('10.0.0.7')).toBe('10.0.0.7');
  });

  it('a TIMESTAMP in RFC 3339 form; a time of another form normalised; one that is no time "-"', () => {
    const timestamp = (time: string) => syslogMessageOf(body, event({ time }), { hostname: 'h' }).split(' ')[1];
    expect(timestamp('2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00Z');
    expect(timestamp('2024-05-01 10:00:00.5Z')).toBe('2024-05-01T10:00:00.500Z');
    expect(timestamp('yesterday')).toBe('-');
  });

  it('keeps the body as it is, non-ASCII too, without a BOM; an empty body leaves no trailing space', () => {
    const withAccent = '{"user":{"name":"José"}}';
    expect(syslogMessageOf(withAccent, event(), { hostname: 'h' })).toMatch(/ \{"user":\{"name":"José"\}\}$/);
    expect(syslogMessageOf(`\uFEFF${body}`, event(), { hostname: 'h' })).not.toContain('\uFEFF');
    expect(syslogMessageOf('', event(), { hostname: 'h' })).toBe(
      '<86>1 2024-05-01T10:00:00.123Z h tessera - authorize -',
    );
  });
});

describe('octetCounted: RFC 6587 octet-counting framing', () => {
  it('prefixes the UTF-8 byte length, not the character count, and a space', () => {
    const message = syslogMessageOf('{"user":{"name":"é"}}', event(), { hostname: 'h' });
    const frame = octetCounted(message);
    const length = Buffer.byteLength(message, 'utf8');
    expect(length).toBe(message.length + 1); // "é" is two bytes
    expect(frame).toBe(`${length} ${message}`);
    expect(Buffer.byteLength(frame)).toBe(`${length} `.length + length);
  });

  it('frames an ASCII message byte for byte', () => {
    expect(octetCounted('<86>1 - - - - - -')).toBe('17 <86>1 - - - - - -');
  });
});
