import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, makeConfig, parseListen } from '../../src/config/config.js';

describe('makeConfig', () => {
  it('defaults to HTTPS on 127.0.0.1:9443, ./data, both API lines, OWASP argon2id, 5 s leeway', () => {
    const config = makeConfig();
    expect(config).toEqual(DEFAULTS);
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9443 });
    expect(config.tls.enabled).toBe(true);
    expect(config.apiLine).toBe('both');
    expect(config.argon2).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(config.clockLeewaySeconds).toBe(5);
  });

  it('is frozen', () => {
    const config = makeConfig();
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.argon2)).toBe(true);
  });

  it.each([
    [{ clockLeewaySeconds: 6 }],
    [{ apiLine: '8.0' as never }],
    [{ listen: { host: 'x', port: 70000 } }],
    [{ argon2: { memoryCost: 8, timeCost: 1, parallelism: 1 } }],
    [{ tls: { enabled: true, certFile: 'cert.pem' } }],
  ])('refuses %j with a clear error', (overrides) => {
    expect(() => makeConfig(overrides)).toThrow(ConfigError);
  });
});

describe('parseListen', () => {
  it('reads host:port, [v6]:port and :port', () => {
    expect(parseListen('0.0.0.0:9443')).toEqual({ host: '0.0.0.0', port: 9443 });
    expect(parseListen('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseListen(':9000')).toEqual({ host: '0.0.0.0', port: 9000 });
  });

  it.each(['9443', 'host:', 'host:99999', 'a:b'])('refuses %j', (value) => {
    expect(() => parseListen(value)).toThrow(ConfigError);
  });
});
