// npm run bench:api-keys: a read with an API key (Bearer, and as the password in Basic) against
// the same read with a token, on one server, in alternating rounds: the server's CPU an answer
// (all threads, from /proc) and answers a second. The figure: a key read is at least 0.8
// of a token read, by server CPU an answer (token CPU / key CPU). A Basic password read from the
// verified-credentials cache is measured beside them: the other way in without a token.
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { startTessera } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';
import { measure, median } from './lib/server-cpu.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

try {
  const store = tempDir('api-key-read');
  await seedUsers(store, 1000);
  const tessera = await startTessera(store, ['--metrics-listen', 'off']);
  const login = await (
    await fetch(`${tessera.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('user2', BENCH_PASSWORD) },
    })
  ).json();
  const uid = JSON.parse(Buffer.from(login.access_token.split('.')[1], 'base64url').toString()).uid;
  const made = await fetch(`${tessera.url}/v1/users/${uid}/api_keys`, {
    method: 'POST',
    headers: { authorization: `JWT ${login.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', ttl_days: 1 }),
  });
  if (made.status !== 200) throw new Error(`making the key: ${made.status} ${await made.text()}`);
  const { key } = await made.json();
  const url = `${tessera.url}/v1/users/${uid}`;
  const ways = {
    token: { authorization: `JWT ${login.access_token}` },
    'key (Bearer)': { authorization: `Bearer ${key}` },
    'key (Basic)': { authorization: basic('user2', key) },
    'password (Basic, remembered)': { authorization: basic('user2', BENCH_PASSWORD) },
  };
  const runs = Object.fromEntries(Object.keys(ways).map((w) => [w, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}`);
    for (const [way, headers] of Object.entries(ways)) runs[way].push(await measure(tessera, url, headers, SECONDS));
  }
  await tessera.stop();
  const at = (way, field) => median(runs[way].map((r) => r[field]));
  const rows = Object.keys(ways).map(
    (way) =>
      `| ${way} | ${at(way, 'total').toFixed(1)} | ${Math.round(at(way, 'rps'))} | ${(at('token', 'total') / at(way, 'total')).toFixed(2)} |`,
  );
  console.log(
    [
      `GET /v1/users/{uid}, median of ${ROUNDS} alternating rounds of ${SECONDS} s, 32 connections:`,
      '',
      '| credentials | server CPU an answer, all threads (µs) | answers /s | token CPU / this CPU |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
} finally {
  removeTempDirs();
}
