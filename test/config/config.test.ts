import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { addServeOptions, configFromOptions } from '../../src/cli/options.js';
import { ConfigError, makeConfig, parseListen } from '../../src/config/config.js';
import { SETTING_KEYS } from '../../src/config/settings.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tessera-config-'));
const keyFile = path.join(dir, 'master.key');
const KEY = Buffer.alloc(32, 7).toString('base64');
writeFileSync(keyFile, `${KEY}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One value for every setting, as a user types it, and what the config then holds at its key. */
const SAMPLES: Record<string, [string[], unknown]> = {
  dataDir: [['--data-dir', '/var/lib/tessera'], '/var/lib/tessera'],
  databaseUrl: [['--database-url', 'postgres://db/tessera'], 'postgres://db/tessera'],
  'argon2.memoryCost': [['--argon2-memory', '65536'], 65536],
  'argon2.timeCost': [['--argon2-iterations', '3'], 3],
  'argon2.parallelism': [['--argon2-parallelism', '2'], 2],
  masterKey: [['--master-key-file', keyFile], KEY],
  keyActivationDelaySeconds: [['--key-activation-delay', '600'], 600],
  redisUrl: [['--redis-url', 'redis://cache:6379'], 'redis://cache:6379'],
  redisKeyPrefix: [['--redis-key-prefix', 'a:'], 'a:'],
  redisFailOpen: [['--redis-fail-open'], true],
  listen: [['--listen', '0.0.0.0:8443'], { host: '0.0.0.0', port: 8443 }],
  metricsListen: [['--metrics-listen', 'off'], null],
  apiLine: [['--api-line', '7.4'], '7.4'],
  'tls.enabled': [['--no-tls'], false],
  'tls.certFile': [['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], 'c.pem'],
  'tls.keyFile': [['--tls-key', 'k.pem', '--tls-cert', 'c.pem'], 'k.pem'],
  publicUrl: [['--public-url', 'https://auth.example'], 'https://auth.example'],
  issuer: [['--issuer', 'urn:tessera'], 'urn:tessera'],
  audiences: [
    ['--audience', 'a,b', '--audience', 'c'],
    ['a', 'b', 'c'],
  ],
  signingAlg: [['--signing-alg', 'RS256'], 'RS256'],
  clockLeewaySeconds: [['--clock-leeway', '2'], 2],
  bodyLimitBytes: [['--body-limit', '4096'], 4096],
  authRateLimit: [['--auth-rate-limit', '0'], 0],
  authCacheSeconds: [['--auth-cache-seconds', '0'], 0],
  eventLogDays: [['--event-log-days', '365'], 365],
  eventLogMax: [['--event-log-max', '50000'], 50000],
  siemFileDir: [['--siem-file-dir', '/var/lib/tessera/siem'], '/var/lib/tessera/siem'],
  loginTimeoutMs: [['--login-timeout', '5000'], 5000],
  loginQueueMs: [['--login-queue-ms', '100'], 100],
  hashThreads: [['--hash-threads', '3'], 3],
  logLevel: [['--log-level', 'debug'], 'debug'],
  'mtls.clientCaFile': [['--client-ca', 'ca.pem'], 'ca.pem'],
  'mtls.certHeader': [
    ['--client-cert-header', 'X-Client-Cert', '--trusted-proxy', '10.0.0.1', '--no-tls'],
    'X-Client-Cert',
  ],
  'mtls.trustedProxies': [
    ['--trusted-proxy', '10.0.0.1,10.1.0.0/16', '--client-cert-header', 'X-Cert', '--no-tls'],
    ['10.0.0.1', '10.1.0.0/16'],
  ],
};

/** `tessera serve ARGS` with this environment, as the CLI parses it, to the config. */
function serveConfig(args: string[], env: Record<string, string> = {}) {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (key.startsWith('TESSERA_')) delete process.env[key];
  Object.assign(process.env, env);
  try {
    const command = addServeOptions(new Command('serve')).exitOverride();
    command.parse(args, { from: 'user' });
    return configFromOptions(command.opts());
  } finally {
    process.env = saved;
  }
}

const at = (config: object, key: string) => key.split('.').reduce<any>((v, k) => v?.[k], config);

describe('the settings', () => {
  it('default to HTTPS on 127.0.0.1:9443, ./data, both API lines, OWASP argon2id, ES256, metrics on 127.0.0.1:9464', () => {
    expect(serveConfig([])).toEqual({
      dataDir: './data',
      argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 },
      keyActivationDelaySeconds: 300,
      redisKeyPrefix: 'tessera:',
      redisFailOpen: false,
      listen: { host: '127.0.0.1', port: 9443 },
      metricsListen: { host: '127.0.0.1', port: 9464 },
      apiLine: 'both',
      tls: { enabled: true },
      mtls: { trustedProxies: [] },
      audiences: [],
      signingAlg: 'ES256',
      clockLeewaySeconds: 5,
      bodyLimitBytes: 8192,
      authRateLimit: 300,
      authCacheSeconds: 300,
      eventLogDays: 90,
      eventLogMax: 1_000_000,
      loginTimeoutMs: 3000,
      loginQueueMs: 2000,
      logLevel: 'info',
    });
    expect(makeConfig()).toEqual(serveConfig([])); // the library's defaults are the CLI's
  });

  it('takes a client certificate header only with the proxy it comes from, and only without TLS here', () => {
    expect(() => serveConfig(['--no-tls', '--client-cert-header', 'X-Cert'])).toThrow(
      /--client-cert-header needs --trusted-proxy/,
    );
    // A trusted proxy alone: its X-Forwarded-For is believed.
    expect(serveConfig(['--no-tls', '--trusted-proxy', '10.0.0.1,fd00::/8']).mtls.trustedProxies).toEqual([
      '10.0.0.1',
      'fd00::/8',
    ]);
    for (const wrong of ['proxy.example', '10.0.0.1/33', '10.0.0/8', 'fd00::/129', '10.0.0.1/8/1'])
      expect(() => serveConfig(['--no-tls', '--trusted-proxy', wrong]), wrong).toThrow(/addresses or CIDRs/);
    expect(() => serveConfig(['--client-cert-header', 'X-Cert', '--trusted-proxy', '10.0.0.1'])).toThrow(/--no-tls/);
  });

  it('has a sample here for every setting (a new setting needs one)', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...SETTING_KEYS].sort());
  });

  it.each(Object.entries(SAMPLES))('%s is set by its flag', (key, [args, expected]) => {
    expect(at(serveConfig(args), key)).toEqual(expected);
  });

  it.each(Object.entries(SAMPLES).filter(([, [args]]) => args.length === 2))(
    '%s is set by its environment variable',
    (key, [args, expected]) => {
      const command = addServeOptions(new Command('serve'));
      const option = command.options.find((o) => o.long === args[0])!;
      expect(at(serveConfig([], { [option.envVar!]: args[1]! }), key)).toEqual(expected);
    },
  );

  it('reads the switches from their variables, and the master key itself from TESSERA_MASTER_KEY', () => {
    const config = serveConfig([], { TESSERA_NO_TLS: '1', TESSERA_REDIS_FAIL_OPEN: '1', TESSERA_MASTER_KEY: KEY });
    expect(config.tls.enabled).toBe(false);
    expect(config.redisFailOpen).toBe(true);
    expect(config.masterKey).toBe(KEY);
  });

  it.each([
    [['--clock-leeway', '6'], /--clock-leeway \(TESSERA_CLOCK_LEEWAY\) must be .*5/],
    [['--listen', 'x:70000'], /--listen must look like HOST:PORT/],
    [['--argon2-memory', '8'], /--argon2-memory \(TESSERA_ARGON2_MEMORY_KIB\) must be .*1024/],
    [['--database-url', 'mysql://db'], /--database-url \(TESSERA_DATABASE_URL\), a postgres:\/\/ URL,/],
    [['--tls-cert', 'c.pem'], /--tls-cert and --tls-key must be given together/],
    [['--login-timeout', 'soon'], /must be a whole number/],
  ])('refuses %j with a message that names the setting', (args, message) => {
    expect(() => serveConfig(args)).toThrow(message);
  });

  it('refuses a value outside its choices', () => {
    expect(() => serveConfig(['--api-line', '8.0'])).toThrow(/Allowed choices are both, 7.22, 7.4/);
  });

  it('is frozen', () => {
    const config = makeConfig();
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.argon2)).toBe(true);
    expect(() => makeConfig({ clockLeewaySeconds: 6 })).toThrow(ConfigError);
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

describe('docs/configuration.md', () => {
  it("lists every setting's flag and variable in its configuration table", async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('## Flags and environment variables'), page.indexOf('## The cluster'));
    const command = addServeOptions(new Command('serve'));
    for (const option of command.options) {
      expect(table, option.long).toContain(`\`${option.long}`);
      expect(table, option.envVar).toContain(option.envVar);
    }
  });
});
