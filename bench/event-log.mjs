// npm run bench:events: the event log's cost. Two servers of this build side by side in one run,
// one with the event log (the default) and one without (--event-log-days 0), loaded at once: logins
// that succeed (each one an event), then a flood of wrong passwords (each one a WARNING event).
import path from 'node:path';
import { measured } from './lib/base-build.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { startProcess } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist/cli/main.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const serve = (dataDir, days) =>
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
      '--event-log-days',
      String(days),
    ],
    {},
    CLI,
  );

let servers = {};
try {
  const [dirOn, dirOff] = [tempDir('events-on'), tempDir('events-off')];
  await seedUsers(dirOn, 100);
  await seedUsers(dirOff, 100);
  servers = { on: await serve(dirOn, 90), off: await serve(dirOff, 0) };
  const both = (options) =>
    Promise.all(Object.entries(servers).map(async ([name, s]) => [name, await measured(s, options(s.url))])).then(
      Object.fromEntries,
    );
  const scenarios = {
    'logins that succeed (POST /v1/users/authorize, 7.4)': (url) => ({
      url: `${url}/v1/users/authorize`,
      method: 'POST',
      body: JSON.stringify({ username: 'user5', password: BENCH_PASSWORD }),
      connections: 4,
      seconds: SECONDS,
    }),
    'a flood of wrong passwords (Basic, 64 connections)': (url) => ({
      url: `${url}/v1/users/authorize`,
      method: 'POST',
      headers: { authorization: basic('user7', 'not-the-password') },
      connections: 64,
      seconds: SECONDS,
    }),
  };
  const runs = Object.fromEntries(Object.keys(scenarios).map((k) => [k, { on: [], off: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const [label, options] of Object.entries(scenarios)) {
      const result = await both(options);
      for (const name of ['on', 'off']) runs[label][name].push(result[name]);
    }
  }
  const events = await (
    await fetch(`${servers.on.url}/v1/logs?limit=1&order=desc`, {
      headers: { authorization: basic('user1', BENCH_PASSWORD) },
    })
  ).json();
  // Every answer counts (the flood's are 401s): answers a second, and server CPU an answer.
  const answers = (x) => x.rps * SECONDS + x.non2xx;
  const perAnswer = (x) => ({
    rps: answers(x) / SECONDS,
    cpuUs: (x.cpuUs * Math.max(1, x.rps * SECONDS)) / Math.max(1, answers(x)),
  });
  const mean = (list, key) => list.map(perAnswer).reduce((n, r) => n + r[key], 0) / list.length;
  const rows = Object.entries(runs).map(([label, r]) => {
    const [ron, roff] = [mean(r.on, 'rps'), mean(r.off, 'rps')];
    const [con, coff] = [mean(r.on, 'cpuUs'), mean(r.off, 'cpuUs')];
    return `| ${label} | ${(ron / roff).toFixed(3)} (${ron.toFixed(0)} vs ${roff.toFixed(0)} /s) | ${(con / coff).toFixed(3)} (${con.toFixed(0)} vs ${coff.toFixed(0)} µs) |`;
  });
  console.log(`## The event log on next to off (${new Date().toISOString()})

Produced by \`npm run bench:events\` (\`node bench/event-log.mjs\`; ${ROUNDS} rounds of ${SECONDS} s, both servers of this build loaded at once).

| scenario | answers a second, on / off | server CPU an answer, on / off |
|---|---|---|
${rows.join('\n')}

The newest event on the server with the log, after the run: ${JSON.stringify(events[0] ?? null)}
`);
} finally {
  for (const s of Object.values(servers)) await s.stop();
  removeTempDirs();
}
