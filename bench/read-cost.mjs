// npm run bench:read-cost: server CPU an answer (user and system, from /proc) of a token-protected
// read against a bare Fastify route serving the same body, in alternating rounds: of the main
// thread, and of every thread of the process (garbage collection and the thread pool too).
// Throughput ratios swing with whatever else the two cores do (the load generator is one of
// them); the CPU a server spends on an answer moves less, and says where the gap is (Tessera's
// JavaScript, or the kernel's share of HTTP). With BASE_REV=<commit>, that revision's build is
// measured in the same rounds too: its ratio to the bare route beside this build's.
import path from 'node:path';
import { baseBuild } from './lib/base-build.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { startProcess, startTessera } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';
import { measure as measureFor, median } from './lib/server-cpu.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const BASE_REV = process.env.BASE_REV;

const measure = (server, url, headers) => measureFor(server, url, headers, SECONDS);

try {
  const store = tempDir('read-cost');
  await seedUsers(store, 1000);
  const tessera = await startTessera(store, ['--metrics-listen', 'off']);
  const token = (
    await (
      await fetch(`${tessera.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic('user2', BENCH_PASSWORD) },
      })
    ).json()
  ).access_token;
  const headers = { authorization: `JWT ${token}` };
  const url = `${tessera.url}/v1/users/3`;
  const body = await (await fetch(url, { headers })).text();
  const bare = await startProcess([path.join(import.meta.dirname, 'baselines/bare-fastify.mjs'), body]);
  let base;
  if (BASE_REV) {
    const build = baseBuild(BASE_REV, log);
    const baseStore = tempDir('read-cost-base');
    const { seedUsers: seedBase } = await import(path.join(build.dir, 'bench/lib/seed.mjs'));
    await seedBase(baseStore, 1000);
    const server = await startProcess(
      [
        'serve',
        '--no-tls',
        '--listen',
        '127.0.0.1:0',
        '--metrics-listen',
        'off',
        '--data-dir',
        baseStore,
        '--auth-rate-limit',
        '0',
      ],
      {},
      build.cli,
    );
    const baseToken = (
      await (
        await fetch(`${server.url}/v1/users/authorize`, {
          method: 'POST',
          headers: { authorization: basic('user2', BENCH_PASSWORD) },
        })
      ).json()
    ).access_token;
    base = { server, headers: { authorization: `JWT ${baseToken}` } };
  }
  const runs = { tessera: [], bare: [], base: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}`);
    runs.bare.push(await measure(bare, `${bare.url}/v1/users/3`, headers));
    runs.tessera.push(await measure(tessera, url, headers));
    if (base) runs.base.push(await measure(base.server, `${base.server.url}/v1/users/3`, base.headers));
  }
  await bare.stop();
  await tessera.stop();
  await base?.server.stop();
  const f = (n) => n.toFixed(1);
  const at = (rs, key) => median(rs.map((r) => r[key]));
  const row = (name, rs) =>
    `| ${name} | ${f(at(rs, 'user'))} | ${f(at(rs, 'system'))} | ${f(at(rs, 'total'))} | ${Math.round(at(rs, 'rps'))} |`;
  console.log(
    [
      `Server CPU an answer, median of ${ROUNDS} alternating rounds of ${SECONDS} s (GET /v1/users/3 with a token; the bare route gets the same header):`,
      '',
      '| server | main thread: user µs | main thread: system µs | all threads: µs | answers /s |',
      '|---|---|---|---|---|',
      row('Tessera', runs.tessera),
      row('bare Fastify', runs.bare),
      ...(base ? [row(`Tessera at ${BASE_REV}`, runs.base)] : []),
      '',
      `A token read costs ${f(at(runs.tessera, 'total') / at(runs.bare, 'total'))}× the bare route's CPU over all threads: it runs at ${(at(runs.bare, 'total') / at(runs.tessera, 'total')).toFixed(2)} of bare Fastify's rate on the same cores.`,
      ...(base
        ? [
            `At ${BASE_REV}: ${(at(runs.bare, 'total') / at(runs.base, 'total')).toFixed(2)} of bare Fastify's rate (this build / ${BASE_REV}, CPU an answer: ${(at(runs.tessera, 'total') / at(runs.base, 'total')).toFixed(3)}).`,
          ]
        : []),
    ].join('\n'),
  );
} finally {
  removeTempDirs();
}
