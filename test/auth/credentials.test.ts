import { describe, expect, it } from 'vitest';
import { decodeBasicCredentials, parseAuthorization, splitAuthorization } from '../../src/auth/credentials.js';
import { InvalidRequestError } from '../../src/errors.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('decodeBasicCredentials', () => {
  it('splits at the first colon only', () => {
    expect(decodeBasicCredentials(b64('bob:a:b:c'))).toEqual({ kind: 'password', username: 'bob', password: 'a:b:c' });
  });

  it('keeps Unicode and spaces exactly', () => {
    expect(decodeBasicCredentials(b64('zoë: ü ß 🔑 '))).toEqual({
      kind: 'password',
      username: 'zoë',
      password: ' ü ß 🔑 ',
    });
  });

  it('allows an empty password (it will simply not match)', () => {
    expect(decodeBasicCredentials(b64('bob:'))).toEqual({ kind: 'password', username: 'bob', password: '' });
  });

  it.each(['!!!', b64('nocolon'), 'YQ=', 'a'])('refuses %s', (token) => {
    expect(() => decodeBasicCredentials(token)).toThrow(InvalidRequestError);
  });
});

describe('splitAuthorization', () => {
  it('lower-cases the scheme and keeps the value', () => {
    expect(splitAuthorization('  JWT   abc.def.ghi ')).toEqual({ scheme: 'jwt', value: 'abc.def.ghi' });
    expect(splitAuthorization('Bearer')).toEqual({ scheme: 'bearer', value: '' });
    expect(splitAuthorization('Basic\t  abc ')).toEqual({ scheme: 'basic', value: 'abc' });
    expect(splitAuthorization('')).toEqual({ scheme: '', value: '' });
  });

  it('takes linear time on a long crafted header: 16× the length, far less than 256× the time', () => {
    const crafted = (n: number) => `Bearer ${' '.repeat(n)}x${' '.repeat(n)}!`;
    expect(splitAuthorization(crafted(20_000))).toEqual({ scheme: 'bearer', value: `x${' '.repeat(20_000)}!` });
    /** The fastest of several runs of 20 splits, in ms: the least disturbed by the machine. */
    const fastest = (header: string) => {
      let best = Infinity;
      for (let run = 0; run < 7; run++) {
        const started = performance.now();
        for (let i = 0; i < 20; i++) splitAuthorization(header);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const [small, large] = [crafted(10_000), crafted(160_000)];
    fastest(large); // warm up
    const ratio = fastest(large) / Math.max(fastest(small), 0.01);
    // Linear: about 16; a quadratic split: about 256.
    expect(ratio).toBeLessThan(64);
  });
});

describe('parseAuthorization', () => {
  it('reads "JWT <token>", "Bearer <token>" and "Basic <base64>" in any case and spacing', () => {
    for (const header of ['JWT a.b.c', 'bearer a.b.c', 'BEARER a.b.c', 'jwt\ta.b.c', ' Bearer   a.b.c ']) {
      expect(parseAuthorization(header), header).toEqual({ kind: 'token', token: 'a.b.c' });
    }
    for (const header of [`Basic ${b64('bob:pw')}`, `BASIC   ${b64('bob:pw')}`]) {
      expect(parseAuthorization(header), header).toEqual({ kind: 'password', username: 'bob', password: 'pw' });
    }
  });

  it('refuses what presents nothing it knows', () => {
    for (const header of ['', 'JWT', 'JWT ', 'JWTa.b.c', 'Token a.b.c'])
      expect(() => parseAuthorization(header), header).toThrow(/Present a token/);
    expect(() => parseAuthorization('Basic !!!')).toThrow(InvalidRequestError);
  });
});
