import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyRequestLogger } from '../../src/http/lazy-request-logger.js';

describe("a request's lazy logger", () => {
  it('makes its child only when it logs, and logs with the request id as a child would', () => {
    const lines: Record<string, unknown>[] = [];
    const parent = pino(
      { level: 'info' },
      new Writable({
        write: (chunk, _enc, done) => {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const child = vi.spyOn(parent, 'child');
    const log = lazyRequestLogger(parent, { reqId: 'req-7' }, {});
    expect(log.level).toBe('info');
    log.debug({ quiet: true }, 'below the level');
    log.info({ status: 200 }, 'request');
    log.warn('twice');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map(({ reqId, status, msg }) => ({ reqId, status, msg }))).toEqual([
      { reqId: 'req-7', status: 200, msg: 'request' },
      { reqId: 'req-7', status: undefined, msg: 'twice' },
    ]);
  });

  it('makes no child for a request that logs nothing', () => {
    const parent = pino({ level: 'info' });
    const child = vi.spyOn(parent, 'child');
    lazyRequestLogger(parent, { reqId: 'req-8' }, {});
    expect(child).not.toHaveBeenCalled();
  });
});
