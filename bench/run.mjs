// npm run bench: every figure of the performance table, side by side in one run, written
// to bench/RESULTS.md. Absolute numbers depend on the machine; the ratios are the point.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { httpsJson, makeClientCertificate } from './lib/client-certificate.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { closedLoop, openLoop, percentile, sequential } from './lib/load.mjs';
import { startProcess, startTessera } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const cores = os.availableParallelism();
const here = import.meta.dirname;
const json = JSON.stringify;
const f = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const rows = [];
/** Runs of one scenario taken as one: mean rate, worst p50 and p99, all refusals. */
const mean = (runs) => ({
  rps: runs.reduce((n, r) => n + r.rps, 0) / runs.length,
  p50: Math.max(...runs.map((r) => r.p50)),
  p99: Math.max(...runs.map((r) => r.p99)),
  non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
});
const row = (figure, value, target, pass) => rows.push({ figure, value, target, pass });

try {
  // 1. The physical limit: argon2id verifications and nothing else, as many at once as the
  // server runs (one a core, and one more), measured between the login runs below so that
  // what else the machine does at each moment hits both alike.
  const rawRate = () =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(here, 'baselines/raw-argon2.mjs'), String(SECONDS / 2)], {
        env: { ...process.env, UV_THREADPOOL_SIZE: String(cores + 1) },
      }),
    ).rate;
  log('token signing and verification by algorithm');
  const signing = JSON.parse(
    execFileSync(process.execPath, [path.join(here, 'baselines/token-signing.mjs'), String(Math.max(1, SECONDS / 4))]),
  );

  // 2. Stores of 1,000 and 1,000,000 users.
  log('seeding 1,000 and 1,000,000 users');
  const small = tempDir('1k');
  await seedUsers(small, 1000);
  const big = tempDir('1m');
  const seedStart = performance.now();
  await seedUsers(big, 1_000_000);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // 3. Tessera: start-up, idle memory, authorize in both formats.
  log('tessera start');
  // The verified-credentials cache off: every login pays its argon2id verification, which is
  // what these figures compare (the cache is measured on its own, in 5b).
  const tessera = await startTessera(small, ['--auth-cache-seconds', '0']);
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = tessera.rssMb();
  const url = `${tessera.url}/v1/users/authorize`;
  const connections = cores * 4;
  // Logins of a hundred users in turn: no two at once share a verification (the same
  // credentials at the same moment would wait for one check), so each pays its own.
  const users = Array.from({ length: 100 }, (_, i) => `user${10 + i}`);
  const asBasic = users.map((u) => ({ headers: { authorization: basic(u, BENCH_PASSWORD) } }));
  const asBody = users.map((u) => ({ body: json({ username: u, password: BENCH_PASSWORD }) }));
  // Warm-up, so that the first format measured does not pay for the JIT alone.
  await closedLoop({ url, method: 'POST', variants: asBody, connections, seconds: 3 });
  // The two formats and the raw rate in alternating runs, so that order and drift hit all alike.
  log('raw argon2id verify rate and tessera authorize, alternating');
  let loadRss = 0;
  const runsA = [];
  const runsB = [];
  const rawRuns = [];
  for (let round = 0; round < 2; round++) {
    const sampler = setInterval(() => (loadRss = Math.max(loadRss, tessera.rssMb())), 250);
    runsA.push(await closedLoop({ url, method: 'POST', variants: asBasic, connections, seconds: SECONDS / 2 }));
    runsB.push(await closedLoop({ url, method: 'POST', variants: asBody, connections, seconds: SECONDS / 2 }));
    clearInterval(sampler);
    rawRuns.push(rawRate());
  }
  const variantA = mean(runsA);
  const variantB = mean(runsB);
  const raw = rawRuns.reduce((n, r) => n + r, 0) / rawRuns.length;

  // 4. The hand-rolled stack, same store, same hashes.
  log('express + argon2 + jsonwebtoken');
  const express = await startProcess([path.join(here, 'baselines/express-stack.mjs'), small]);
  const expressB = await closedLoop({
    url: `${express.url}/v1/users/authorize`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    variants: asBody,
    connections,
    seconds: SECONDS,
  });
  await express.stop();

  // 5. A token-protected read against the bare HTTP floor.
  log('token-protected read vs bare fastify');
  const tokenRes = await fetch(url, {
    method: 'POST',
    headers: { authorization: basic('user2', BENCH_PASSWORD) },
    body: json({ ttl: 3600 }),
  });
  const token = (await tokenRes.json()).access_token;
  const userUrl = `${tessera.url}/v1/users/3`;
  const body = await (await fetch(userUrl, { headers: { authorization: `JWT ${token}` } })).text();
  const bare = await startProcess([path.join(here, 'baselines/bare-fastify.mjs'), body]);
  const readConnections = 32;
  // Alternating halves, so that a change in the machine's load hits both alike.
  const bareRuns = [];
  const tokenRuns = [];
  for (let round = 0; round < 2; round++) {
    bareRuns.push(
      await closedLoop({ url: `${bare.url}/v1/users/3`, connections: readConnections, seconds: SECONDS / 2 }),
    );
    tokenRuns.push(
      await closedLoop({
        url: userUrl,
        headers: { authorization: `JWT ${token}` },
        connections: readConnections,
        seconds: SECONDS / 2,
      }),
    );
  }
  await bare.stop();
  const bareRead = mean(bareRuns);
  const tokenRead = mean(tokenRuns);

  // 5b. Basic credentials on every call (what the product's clients send), answered from the
  // verified-credentials cache, beside token reads on the same server (cache on, its default).
  log('Basic read (cached) vs token read');
  const cached = await startTessera(small);
  const cachedUserUrl = `${cached.url}/v1/users/3`;
  const cachedToken = (
    await (
      await fetch(`${cached.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic('user2', BENCH_PASSWORD) },
        body: json({ ttl: 3600 }),
      })
    ).json()
  ).access_token;
  const basicRuns = [];
  const tokenRunsCached = [];
  for (let round = 0; round < 2; round++) {
    basicRuns.push(
      await closedLoop({
        url: cachedUserUrl,
        headers: { authorization: basic('user2', BENCH_PASSWORD) },
        connections: readConnections,
        seconds: SECONDS / 2,
      }),
    );
    tokenRunsCached.push(
      await closedLoop({
        url: cachedUserUrl,
        headers: { authorization: `JWT ${cachedToken}` },
        connections: readConnections,
        seconds: SECONDS / 2,
      }),
    );
  }
  await cached.stop();
  const basicRead = mean(basicRuns);
  const tokenReadCached = mean(tokenRunsCached);

  // 5c. A client certificate on every call (automation with mTLS), beside the same user's token
  // on the same route, both over TLS to one server (its certificate made at its first start).
  log('certificate read vs token read (TLS)');
  const client = makeClientCertificate(tempDir('certs'), '/O=Example/CN=bench-bot');
  const mtls = await startTessera(
    tempDir('mtls'),
    ['--client-ca', client.caFile],
    { TESSERA_ADMIN_USERNAME: 'root', TESSERA_ADMIN_PASSWORD: BENCH_PASSWORD },
    { tls: true },
  );
  const rootToken = (
    await httpsJson(`${mtls.url}/v1/users/authorize`, {
      method: 'POST',
      body: { username: 'root', password: BENCH_PASSWORD },
    })
  ).access_token;
  const asRoot = { authorization: `JWT ${rootToken}` };
  await httpsJson(`${mtls.url}/v1/cluster`, {
    method: 'PUT',
    headers: asRoot,
    body: { mtls_certificate_authentication: true },
  });
  const bot = await httpsJson(`${mtls.url}/v1/users`, {
    method: 'POST',
    headers: asRoot,
    body: { auth_method: 'certificate', certificate_subject_line: 'CN=bench-bot,O=Example', role: 'cluster_viewer' },
  });
  const botToken = (
    await httpsJson(`${mtls.url}/v1/users/authorize`, {
      method: 'POST',
      cert: client.cert,
      key: client.key,
      body: { ttl: 3600 },
    })
  ).access_token;
  const botUrl = `${mtls.url}/v1/users/${bot.uid}`;
  const certRuns = [];
  const tokenRunsTls = [];
  for (let round = 0; round < 2; round++) {
    certRuns.push(
      await closedLoop({
        url: botUrl,
        tlsOptions: { cert: client.cert, key: client.key },
        connections: readConnections,
        seconds: SECONDS / 2,
      }),
    );
    tokenRunsTls.push(
      await closedLoop({
        url: botUrl,
        headers: { authorization: `JWT ${botToken}` },
        connections: readConnections,
        seconds: SECONDS / 2,
      }),
    );
  }
  await mtls.stop();
  const certRead = mean(certRuns);
  const tokenReadTls = mean(tokenRunsTls);

  // 6. Login latency does not grow with the store.
  log('login latency, 1k vs 1M users');
  const tesseraBig = await startTessera(big, ['--auth-cache-seconds', '0']);
  await new Promise((r) => setTimeout(r, 1000));
  const idleRssBig = tesseraBig.rssMb();
  // Both servers warmed alike first (the small one has served the runs above), then
  // alternating rounds of sequential logins, so that drift in the machine hits both alike.
  const warm = (server) =>
    closedLoop({
      url: `${server.url}/v1/users/authorize`,
      method: 'POST',
      body: json({ username: 'user3', password: BENCH_PASSWORD }),
      connections: 4,
      seconds: 3,
    });
  await warm(tesseraBig);
  await warm(tessera);
  const latenciesSmall = [];
  const latenciesBig = [];
  const rounds = Math.max(4, SECONDS * 2);
  for (let round = 0; round < rounds; round++) {
    const login = (server, name) =>
      sequential({
        url: `${server.url}/v1/users/authorize`,
        method: 'POST',
        body: json({ username: name, password: BENCH_PASSWORD }),
        count: 20,
      });
    latenciesSmall.push(...(await login(tessera, `user${500 + round}`)));
    latenciesBig.push(...(await login(tesseraBig, `user${999_999 - round * 7919}`)));
  }
  await tesseraBig.stop();
  const p50Small = percentile(latenciesSmall, 50);
  const p50Big = percentile(latenciesBig, 50);

  // 7. A burst: 200 logins of 20 users at once (a CI pipeline's parallel jobs), default
  // deadline and queue bound, full argon2id cost. Twice, the second on a warmed server.
  log('burst of 200 logins of 20 users');
  const verifications = async () =>
    Number(
      /^tessera_password_verify_duration_seconds_count (\d+)/m.exec(
        await (await fetch(`${tessera.managementUrl}/metrics`)).text(),
      )[1],
    );
  const burst = async () => {
    const before = await verifications();
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const started = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: basic(`user${100 + (i % 20)}`, BENCH_PASSWORD) },
        });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - started };
      }),
    );
    const ms = results.map((r) => r.ms);
    return {
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      refused: results.filter((r) => r.status !== 200).length,
      verified: (await verifications()) - before,
    };
  };
  const bursts = [await burst(), await burst()];

  // 8. Overload: ten times the login capacity, open loop, with /healthz and token reads beside it;
  // every login a guess of its own (names no one has: each costs a verification, none shares one).
  log('overload at 10x capacity');
  const capacity = Math.max(variantA.rps, variantB.rps);
  const guesses = Array.from({ length: Math.ceil(capacity * 10 * SECONDS) }, (_, i) =>
    json({ username: `nobody-${i}`, password: `guess-${i}` }),
  );
  const flood = new Worker(path.join(here, 'lib/flood-worker.mjs'), {
    workerData: { url, method: 'POST', bodies: guesses, rate: capacity * 10, seconds: SECONDS },
  });
  const [logins, health, probes, managementProbes, reads] = await Promise.all([
    new Promise((resolve, reject) =>
      flood.once('message', (entries) => resolve(new Map(entries))).once('error', reject),
    ),
    openLoop({ url: `${tessera.url}/healthz`, rate: 50, seconds: SECONDS }),
    openLoop({ url: `${tessera.url}/healthz`, rate: 10, seconds: SECONDS, connectionEach: true }),
    openLoop({ url: `${tessera.managementUrl}/healthz`, rate: 10, seconds: SECONDS, connectionEach: true }),
    openLoop({ url: userUrl, headers: { authorization: `JWT ${token}` }, rate: 50, seconds: SECONDS }),
  ]);
  await tessera.stop();
  const admitted = logins.get(401) ?? []; // checked in full, and refused as the guesses they are
  const refused = logins.get(503) ?? [];
  const offered = [...logins.values()].reduce((n, l) => n + l.length, 0);

  row(
    'authorize (7.22) throughput / raw argon2id verify rate',
    `${f(variantA.rps / raw, 2)} (${f(variantA.rps)} vs ${f(raw)} /s)`,
    '≥ 0.90',
    variantA.rps / raw >= 0.9,
  );
  row(
    'authorize (7.4) throughput / raw argon2id verify rate',
    `${f(variantB.rps / raw, 2)} (${f(variantB.rps)} vs ${f(raw)} /s)`,
    '≥ 0.90',
    variantB.rps / raw >= 0.9,
  );
  row(
    'authorize (7.4) throughput / Express 5 + argon2 + jsonwebtoken',
    `${f(variantB.rps / expressB.rps, 2)} (${f(variantB.rps)} vs ${f(expressB.rps)} /s)`,
    '≥ 1.5',
    variantB.rps / expressB.rps >= 1.5,
  );
  row(
    'token-protected read / bare Fastify route',
    `${f(tokenRead.rps / bareRead.rps, 2)} (${f(tokenRead.rps)} vs ${f(bareRead.rps)} /s)`,
    '≥ 0.70',
    tokenRead.rps / bareRead.rps >= 0.7,
  );
  row(
    'Basic read from the verified-credentials cache / token-protected read',
    `${f(basicRead.rps / tokenReadCached.rps, 2)} (${f(basicRead.rps)} vs ${f(tokenReadCached.rps)} /s, non-2xx ${basicRead.non2xx})`,
    '≥ 0.50',
    basicRead.rps / tokenReadCached.rps >= 0.5 && basicRead.non2xx === 0,
  );
  row(
    'certificate-authenticated read / token-protected read (TLS, the same user and route)',
    `${f(certRead.rps / tokenReadTls.rps, 2)} (${f(certRead.rps)} vs ${f(tokenReadTls.rps)} /s, non-2xx ${certRead.non2xx})`,
    '≥ 0.50',
    certRead.rps / tokenReadTls.rps >= 0.5 && certRead.non2xx === 0,
  );
  row(
    'p50 login latency, 1M users / 1k users',
    `${f(p50Big / p50Small, 3)} (${f(p50Big, 2)} vs ${f(p50Small, 2)} ms)`,
    '≤ 1.05',
    p50Big / p50Small <= 1.05,
  );
  row(
    'burst of 200 logins of 20 users: answers other than 200',
    bursts.map((b) => b.refused).join(' / '),
    '0',
    bursts.every((b) => b.refused === 0),
  );
  row(
    '/healthz p99 under 10× login overload (API port, kept-alive connections)',
    `${f(percentile(health.get(200), 99), 1)} ms`,
    '< 50 ms',
    percentile(health.get(200), 99) < 50,
  );
  row(
    '/healthz p99 under 10× login overload (management listener, a new connection each, as a probe)',
    `${f(percentile(managementProbes.get(200), 99), 1)} ms`,
    '< 50 ms',
    percentile(managementProbes.get(200), 99) < 50,
  );
  for (const alg of ['ES256', 'EdDSA', 'RS256']) {
    const share = raw / signing[alg].signPerSec; // one signature's time / one argon2id verification's
    row(
      `${alg} token signing time / argon2id verification time`,
      `${f(share, 4)} (${f(signing[alg].signPerSec)} vs ${f(raw)} /s)`,
      '≤ 0.02',
      share <= 0.02,
    );
  }
  row(
    'idle RSS (1k users / 1M users)',
    `${f(idleRss)} MB / ${f(idleRssBig)} MB`,
    '< 120 MB',
    Math.max(idleRss, idleRssBig) < 120,
  );

  const details = [
    `- machine: ${cores} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; ${SECONDS} s a scenario; load generator on the same machine`,
    `- authorize 7.22: ${f(variantA.rps)} /s, p50 ${variantA.p50} ms, p99 ${variantA.p99} ms, non-2xx ${variantA.non2xx}; 7.4: ${f(variantB.rps)} /s, p50 ${variantB.p50} ms, p99 ${variantB.p99} ms, non-2xx ${variantB.non2xx} (${connections} connections)`,
    `- raw argon2id verify rate (${cores + 1} at once, as the server runs them; measured between the login runs): ${rawRuns.map((r) => f(r)).join(', ')} /s; authorize runs with 100 users in turn (no two logins at once share a check)`,
    `- Express stack: ${f(expressB.rps)} /s, p50 ${expressB.p50} ms, p99 ${expressB.p99} ms`,
    `- token read: ${f(tokenRead.rps)} /s (p99 ${tokenRead.p99} ms); bare Fastify: ${f(bareRead.rps)} /s (p99 ${bareRead.p99} ms); ${readConnections} connections`,
    `- login latency, ${latenciesSmall.length} sequential logins each, alternating: 1k users p50 ${f(p50Small, 2)} ms, p99 ${f(percentile(latenciesSmall, 99), 2)} ms; 1M users p50 ${f(p50Big, 2)} ms, p99 ${f(percentile(latenciesBig, 99), 2)} ms (seeding 1M users took ${f(seedSeconds, 1)} s)`,
    `- overload: ${offered} logins offered at ${f(capacity * 10)} /s: ${admitted.length} admitted and checked (each a guess at a name no one has: 401; p50 ${f(percentile(admitted, 50), 1)} ms, p99 ${f(percentile(admitted, 99), 1)} ms), ${refused.length} refused with 503 (p99 ${f(percentile(refused, 99), 1)} ms), other: ${offered - admitted.length - refused.length}; /healthz p50 ${f(percentile(health.get(200), 50), 1)} ms, p99 ${f(percentile(health.get(200), 99), 1)} ms (kept-alive connections), with a new connection each (as a probe makes): p50 ${f(percentile(probes.get(200), 50), 1)} ms, max ${f(Math.max(...(probes.get(200) ?? [NaN])), 1)} ms; on the management listener, a new connection each: p50 ${f(percentile(managementProbes.get(200), 50), 1)} ms, p99 ${f(percentile(managementProbes.get(200), 99), 1)} ms, max ${f(Math.max(...(managementProbes.get(200) ?? [NaN])), 1)} ms; token reads p99 ${f(percentile(reads.get(200), 99), 1)} ms`,
    `- burst of 200 concurrent logins of 20 users (default --login-timeout and --login-queue-ms): ${bursts.map((b) => `p50 ${f(b.p50)} ms, p99 ${f(b.p99)} ms, ${b.refused} not 200, ${b.verified} verifications`).join('; then ')} (logins with the same credentials at once share one check); raw argon2id rate ${f(raw)} /s`,
    `- tokens (fast-jwt on node:crypto, one thread, in a process of its own): ${['ES256', 'EdDSA', 'RS256'].map((a) => `${a} sign ${f(signing[a].signPerSec)} /s, verify ${f(signing[a].verifyPerSec)} /s`).join('; ')}; the server signs with ES256 (a new store's default), so the authorize and token-read figures above are ES256's (token reads verify once, then hit the cache)`,
    `- start-up to listening: ${f(tessera.startupMs)} ms (1k users), ${f(tesseraBig.startupMs)} ms (1M users); RSS idle ${f(idleRss)} MB, under login load ${f(loadRss)} MB`,
  ];
  const table = [
    '| figure | measured | target | met |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.figure} | ${r.value} | ${r.target} | ${r.pass ? 'yes' : 'no'} |`),
  ];
  const report = [
    '# Benchmark results',
    '',
    'Produced by `npm run bench` (`node bench/run.mjs`; `BENCH_SECONDS` sets the seconds a scenario, default 8).',
    `Run of ${new Date().toISOString()}. Ratios come from one run on one machine; absolute numbers move with the machine and its load.`,
    '',
    ...table,
    '',
    ...details,
    '',
  ].join('\n');
  writeFileSync(path.join(here, 'RESULTS.md'), report);
  console.log(report);
} finally {
  removeTempDirs();
}
