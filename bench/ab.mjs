// npm run bench:ab: this build against an earlier one (BASE_REV, default 59087de: the commit
// before roles, the product's user object and the one access hook), side by side in one
// run: both servers loaded at once, each on a store seeded by its own build, so whatever else
// the machine does hits both alike. Token reads, Basic reads and logins.
import path from 'node:path';
import { baseBuild, measured } from './lib/base-build.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { startProcess } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const BASE_REV = process.env.BASE_REV ?? '59087de';
const serve = (cli, dataDir) =>
  startProcess(
    [
      'serve',
      '--no-tls',
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      'off',
      '--data-dir',
      dataDir,
      '--auth-rate-limit',
      '0',
    ],
    {},
    cli,
  );

let servers = {};
try {
  const base = baseBuild(BASE_REV, log);
  const [dirNew, dirBase] = [tempDir('new'), tempDir('base')];
  await seedUsers(dirNew, 1000);
  const { seedUsers: seedBase } = await import(path.join(base.dir, 'bench/lib/seed.mjs'));
  await seedBase(dirBase, 1000);
  servers = { new: await serve(path.join(ROOT, 'dist/cli/main.js'), dirNew), base: await serve(base.cli, dirBase) };
  const tokens = {};
  for (const [name, s] of Object.entries(servers)) {
    const res = await fetch(`${s.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: 'user2', password: BENCH_PASSWORD, ttl: 3600 }),
    });
    tokens[name] = (await res.json()).access_token;
  }
  const both = (options) =>
    Promise.all(Object.entries(servers).map(async ([name, s]) => [name, await measured(s, options(name, s.url))])).then(
      Object.fromEntries,
    );
  const scenarios = {
    'token read (GET /v1/users/{uid}, own token)': (name, url) => ({
      url: `${url}/v1/users/3`,
      headers: { authorization: `JWT ${tokens[name]}` },
      connections: 16,
      seconds: SECONDS,
    }),
    'logins of one user, repeated (POST /v1/users/authorize, 7.4)': (_name, url) => ({
      url: `${url}/v1/users/authorize`,
      method: 'POST',
      body: JSON.stringify({ username: 'user5', password: BENCH_PASSWORD }),
      connections: 4,
      seconds: SECONDS,
    }),
    'Basic read (GET /v1/users/{uid}, the same credentials each time)': (_name, url) => ({
      url: `${url}/v1/users/3`,
      headers: { authorization: basic('user2', BENCH_PASSWORD) },
      connections: 16,
      seconds: SECONDS,
    }),
  };
  const runs = Object.fromEntries(Object.keys(scenarios).map((k) => [k, { new: [], base: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const [label, options] of Object.entries(scenarios)) {
      const result = await both(options);
      for (const name of ['new', 'base']) runs[label][name].push(result[name]);
    }
  }
  const mean = (list, key) => list.reduce((n, r) => n + r[key], 0) / list.length;
  const rows = Object.entries(runs).map(([label, r]) => {
    const [rn, rb] = [mean(r.new, 'rps'), mean(r.base, 'rps')];
    const [cn, cb] = [mean(r.new, 'cpuUs'), mean(r.base, 'cpuUs')];
    const errors = r.new.reduce((n, x) => n + x.non2xx, 0) + r.base.reduce((n, x) => n + x.non2xx, 0);
    return `| ${label} | ${(rn / rb).toFixed(3)} (${rn.toFixed(0)} vs ${rb.toFixed(0)} /s) | ${(cn / cb).toFixed(3)} (${cn.toFixed(0)} vs ${cb.toFixed(0)} µs) | ${errors} |`;
  });
  const basicVsToken =
    mean(runs[Object.keys(scenarios)[2]].new, 'rps') / mean(runs[Object.keys(scenarios)[0]].new, 'rps');
  console.log(`## This build against ${BASE_REV} (${new Date().toISOString()})

Produced by \`npm run bench:ab\` (\`node bench/ab.mjs\`; BASE_REV=${BASE_REV}, ${ROUNDS} rounds of ${SECONDS} s, both servers loaded at once, each on 1,000 users seeded by its own build).

| scenario | throughput, this / base | server CPU an answer, this / base | answers other than 2xx |
|---|---|---|---|
${rows.join('\n')}

Basic read / token read, this build: ${basicVsToken.toFixed(3)} (the same route and load). With the verified-credentials cache
(issue 18) a repeated password skips argon2id: the base hashes it every time.
`);
} finally {
  for (const s of Object.values(servers)) await s.stop();
  removeTempDirs();
}
