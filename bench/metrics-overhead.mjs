// npm run bench:metrics: what the Prometheus metrics cost, side by side in one run.
// 1. In process: the metric updates of one token read and of one login, against the time
//    such a request takes.
// 2. Over HTTP: token reads and logins of this build against a build of the commit before the
//    metrics (BASE_REV, default 651c76d), both loaded at once, each on a store it seeded.
import path from 'node:path';
import { Metrics } from '../dist/metrics/metrics.js';
import { baseBuild, measured } from './lib/base-build.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { startProcess } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const BASE_REV = process.env.BASE_REV ?? '651c76d';

/** ns per call of `work`, the best of 5 runs of n calls. */
function nsPerCall(work, n = 200_000) {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) work(i);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / n);
  }
  return best;
}

const serve = (cli, dataDir, extra = []) =>
  startProcess(
    ['serve', '--no-tls', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--auth-rate-limit', '0', ...extra],
    {},
    cli,
  );

let servers = {};
try {
  // 1. In process.
  const metrics = new Metrics();
  const read = nsPerCall((i) => {
    metrics.tokenChecked('valid', i % 100 !== 0);
    metrics.httpRequest('/v1/users/:uid', 'GET', 200, 0.0004);
  });
  const login = nsPerCall(() => {
    metrics.queueWaited(0.4);
    metrics.passwordVerified(9);
    metrics.tokenIssued('ES256');
    metrics.login('success', '7.4', 0.012);
    metrics.httpRequest('/v1/users/authorize', 'POST', 200, 0.012);
  });
  const scrapeStarted = performance.now();
  for (let i = 0; i < 20; i++) await metrics.registry.metrics();
  const scrapeMs = (performance.now() - scrapeStarted) / 20;

  // 2. Over HTTP, this build against the base revision.
  // Each store seeded by its own build: a store of this build has migrations the base does not know.
  const base = baseBuild(BASE_REV, log);
  const [dirNew, dirBase] = [tempDir('new'), tempDir('base')];
  await seedUsers(dirNew, 1000);
  await (await import(path.join(base.dir, 'bench/lib/seed.mjs'))).seedUsers(dirBase, 1000);
  servers = {
    metrics: await serve(path.join(ROOT, 'dist/cli/main.js'), dirNew, ['--metrics-listen', '127.0.0.1:0']),
    base: await serve(base.cli, dirBase),
  };
  const runs = { metrics: { read: [], login: [] }, base: { read: [], login: [] } };
  const tokens = {};
  for (const [name, s] of Object.entries(servers)) {
    const res = await fetch(`${s.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('user2', BENCH_PASSWORD) },
      body: '{"ttl":3600}',
    });
    tokens[name] = (await res.json()).access_token;
  }
  // Both servers under the same load at the same time, so that whatever else the machine
  // does hits both alike; the server's CPU per answer is the steadier figure.
  const both = (options) =>
    Promise.all(Object.entries(servers).map(async ([name, s]) => [name, await measured(s, options(name, s.url))])).then(
      Object.fromEntries,
    );
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    const reads = await both((name, url) => ({
      url: `${url}/v1/users/3`,
      headers: { authorization: `JWT ${tokens[name]}` },
      connections: 16,
      seconds: SECONDS,
    }));
    const logins = await both((_name, url) => ({
      url: `${url}/v1/users/authorize`,
      method: 'POST',
      body: JSON.stringify({ username: 'user5', password: BENCH_PASSWORD }),
      connections: 4,
      seconds: SECONDS,
    }));
    for (const name of Object.keys(servers)) {
      runs[name].read.push(reads[name]);
      runs[name].login.push(logins[name]);
    }
  }
  const rate = (list) => list.reduce((n, r) => n + r.rps, 0) / list.length;
  const cpu = (list) => list.reduce((n, r) => n + r.cpuUs, 0) / list.length;
  const readRatio = rate(runs.metrics.read) / rate(runs.base.read);
  const loginRatio = rate(runs.metrics.login) / rate(runs.base.login);
  const readUs = 1e6 / rate(runs.metrics.read);

  console.log(`# Metrics overhead (${new Date().toISOString()})

Produced by \`npm run bench:metrics\` (\`node bench/metrics-overhead.mjs\`; BASE_REV=${BASE_REV}, ${ROUNDS} rounds of ${SECONDS} s, both servers loaded at once).

| figure | measured |
|---|---|
| metric updates of one token read | ${read.toFixed(0)} ns (${((read / 1000 / readUs) * 100).toFixed(2)} % of a token read's ${readUs.toFixed(1)} µs of server time at full load) |
| metric updates of one login | ${login.toFixed(0)} ns |
| one scrape of GET /metrics | ${scrapeMs.toFixed(2)} ms |
| token reads /s, with metrics / before them | ${readRatio.toFixed(3)} (${rate(runs.metrics.read).toFixed(0)} vs ${rate(runs.base.read).toFixed(0)} /s) |
| logins /s, with metrics / before them | ${loginRatio.toFixed(3)} (${rate(runs.metrics.login).toFixed(0)} vs ${rate(runs.base.login).toFixed(0)} /s) |
| server CPU of a token read, with metrics / before them | ${(cpu(runs.metrics.read) / cpu(runs.base.read)).toFixed(3)} (${cpu(runs.metrics.read).toFixed(1)} vs ${cpu(runs.base.read).toFixed(1)} µs) |
| server CPU of a login, with metrics / before them | ${(cpu(runs.metrics.login) / cpu(runs.base.login)).toFixed(3)} (${cpu(runs.metrics.login).toFixed(0)} vs ${cpu(runs.base.login).toFixed(0)} µs, hashing threads included) |
`);
} finally {
  for (const s of Object.values(servers)) await s.stop();
  removeTempDirs();
}
