// npm run bench:events: the event log's cost. Two servers of this build side by side in one run,
// one with the event log (the default) and one without (--event-log-days 0), loaded at once: logins
// that succeed (each one an event), then a flood of wrong passwords (each one a WARNING event).
import path from 'node:path';
import { basic, removeTempDirs, tempDir } from './lib/common.mjs';
import { startProcess } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';
import { loginScenarios, sideBySide } from './lib/side-by-side.mjs';

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
  const rows = await sideBySide(servers, loginScenarios(SECONDS), { rounds: ROUNDS, seconds: SECONDS });
  const events = await (
    await fetch(`${servers.on.url}/v1/logs?limit=1&order=desc`, {
      headers: { authorization: basic('user1', BENCH_PASSWORD) },
    })
  ).json();
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
