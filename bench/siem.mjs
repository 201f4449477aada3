// npm run bench:siem: what a SIEM sink costs, and how fast the outbox drains. Two servers of this
// build side by side in one run, one with a syslog TCP sink (to a receiver of this script's own that
// reads the octet-counted frames) and one with none, loaded at once: logins that succeed (each one
// an event), then a flood of wrong passwords (each one a WARNING event). Then the drain: 50,000
// events put in the outbox while the receiver is away, and the time from its return to the last one.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { basic, removeTempDirs, tempDir } from './lib/common.mjs';
import { pinLoadApart, startTessera } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';
import { loginScenarios, sideBySide } from './lib/side-by-side.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 16);
const DRAIN = 50_000;
const ADMIN = basic('user0', BENCH_PASSWORD);

/** A syslog TCP receiver: counts octet-counted frames, and when the last one came. */
function receiver(port = 0) {
  const state = { frames: 0, first: 0, last: 0 };
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const space = pending.indexOf(0x20);
        if (space < 0) break;
        const length = Number(pending.subarray(0, space).toString());
        if (pending.length < space + 1 + length) break;
        pending = pending.subarray(space + 1 + length);
        state.frames++;
        state.last = performance.now();
        state.first ||= state.last;
      }
    });
    socket.on('end', () => socket.end());
    socket.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ port: server.address().port, state, close: () => server.close() }),
    ),
  );
}

const send = (method, url, body) =>
  fetch(`${url}/v1/cluster/auditing/control_plane`, {
    method,
    headers: { authorization: ADMIN, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`${method} control_plane: ${r.status} ${await r.text()}`);
  });
const status = async (url) =>
  (await (await fetch(`${url}/v1/cluster/auditing/control_plane`, { headers: { authorization: ADMIN } })).json())
    .sinks[0].status;

let servers = {};
let sink;
try {
  const [dirOn, dirOff] = [tempDir('siem-on'), tempDir('siem-off')];
  await seedUsers(dirOn, 100);
  await seedUsers(dirOff, 100);
  sink = await receiver();
  const cpu = pinLoadApart();
  servers = { on: await startTessera(dirOn, [], {}, { cpu }), off: await startTessera(dirOff, [], {}, { cpu }) };
  const bench = { name: 'bench', type: 'syslog', format: 'json', address: '127.0.0.1', port: sink.port };
  // The sink moves from one server to the other every round: each process is "sink" half the time.
  let holder;
  const sinkOn = async (server) => {
    if (holder === server) return;
    if (holder) {
      while ((await status(holder.url)).backlog > 0) await new Promise((r) => setTimeout(r, 200));
      await send('DELETE', holder.url);
    }
    await send('PUT', server.url, { sinks: [bench] });
    holder = server;
  };
  const arrange = async (round) => {
    const pair = round % 2 === 0 ? servers : { on: servers.off, off: servers.on };
    await sinkOn(pair.on);
    return pair;
  };
  const rows = await sideBySide(servers, loginScenarios(SECONDS), { rounds: ROUNDS, seconds: SECONDS, arrange });
  await sinkOn(servers.on);
  while ((await status(servers.on.url)).backlog > 0) await new Promise((r) => setTimeout(r, 200));
  const deliveredUnderLoad = sink.state.frames;

  // The drain: the receiver away, 50,000 events put in the outbox (as a long outage leaves them), then back.
  const port = sink.port;
  sink.close();
  await new Promise((r) => setTimeout(r, 1500)); // a failed try, so that the backoff starts
  const file = new SQLite(path.join(dirOn, 'tessera.db'));
  file.pragma('busy_timeout = 5000');
  const insert = file.prepare('insert into siem_outbox (sink, event, change, created_at) values (?, ?, 0, ?)');
  const now = Date.now();
  file.transaction(() => {
    for (let i = 0; i < DRAIN; i++)
      insert.run(
        'bench',
        JSON.stringify({
          id: randomUUID(),
          time: new Date(now).toISOString(),
          type: 'authorize',
          severity: 'INFO',
          node: 'bench',
          outcome: 'success',
          username: `user${i % 100}`,
          ip: '127.0.0.1',
          request_id: `req-${i}`,
        }),
        now,
      );
  })();
  file.close();
  sink = await receiver(port);
  const started = performance.now();
  while (sink.state.frames < DRAIN) {
    if (performance.now() - started > 120_000)
      throw new Error(`only ${sink.state.frames} of ${DRAIN} delivered in 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const drainSeconds = (sink.state.last - sink.state.first) / 1000;
  const waited = (sink.state.first - started) / 1000;
  console.log(`## A SIEM sink (issue 38): a server with a syslog TCP sink next to one without (${new Date().toISOString()})

Produced by \`npm run bench:siem\` (\`node bench/siem.mjs\`; ${ROUNDS} rounds of ${SECONDS} s, both servers of this build loaded at once, the sink moved from one to the other every round; ${cpu === undefined ? 'nothing pinned' : `the servers on CPU ${cpu}, the load on CPU 0`}).

The CPU ratio's ± is two standard errors of the rounds' ratios.

| scenario | answers a second, sink / none | server CPU an answer, sink / none |
|---|---|---|
${rows.join('\n')}

Events delivered to the receiver during the load: ${deliveredUnderLoad}.
Drain: ${DRAIN} events waiting in the outbox delivered in ${drainSeconds.toFixed(2)} s once the receiver was back: **${(DRAIN / drainSeconds).toFixed(0)} events a second** (the first ${waited.toFixed(1)} s after its return were the backoff's wait).
`);
} finally {
  for (const s of Object.values(servers)) await s.stop();
  sink?.close();
  removeTempDirs();
}
