// npm run bench:ldap: an LDAP login's cost next to a local one's, on one server, side by side
// in one run. The directory is a real OpenLDAP (Debian's slapd) started here; both logins pay
// their whole check (the verified-credentials cache off), and a Basic read through the cache
// is measured for both realms too. Appends its table to bench/RESULTS.md.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { directorySettings, group, groupDn, person, startDirectory } from '../test/helpers/slapd.mjs';
import { basic, log, removeTempDirs, tempDir } from './lib/common.mjs';
import { closedLoop, percentile, sequential } from './lib/load.mjs';
import { startTessera } from './lib/processes.mjs';
import { BENCH_PASSWORD, seedUsers } from './lib/seed.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEQUENTIAL = 200;
const json = JSON.stringify;
const f = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const results = path.join(import.meta.dirname, 'RESULTS.md');

// Twenty people a realm: the logins of a loop take them in turn, so that no two at once share
// one check (logins with the same credentials at the same moment wait for the one under way).
const PEOPLE = 20;
const dana = Array.from({ length: PEOPLE }, (_, i) => `dana${i}`);
const directory = await startDirectory(dana.map((d) => person(d, BENCH_PASSWORD)).join('') + group('ops', dana));
try {
  const store = tempDir('ldap');
  await seedUsers(store, 1000);
  const servers = {};
  for (const [name, args] of [
    ['full', ['--auth-cache-seconds', '0']],
    ['cached', []],
  ]) {
    const server = await startTessera(store, args);
    servers[name] = server;
  }
  // LDAP set once through the API (the store is shared: both servers read it).
  const admin = (
    await (
      await fetch(`${servers.full.url}/v1/users/authorize`, {
        method: 'POST',
        body: json({ username: 'user0', password: BENCH_PASSWORD }),
      })
    ).json()
  ).access_token;
  const put = (url, body) =>
    fetch(`${servers.full.url}${url}`, {
      method: url.includes('mappings') ? 'POST' : 'PUT',
      headers: { authorization: `JWT ${admin}` },
      body: json(body),
    });
  const ldap = await put('/v1/cluster/ldap', directorySettings(directory.url));
  if (!ldap.ok) throw new Error(`PUT /v1/cluster/ldap: ${ldap.status} ${await ldap.text()}`);
  const mapping = await put('/v1/ldap_mappings', { name: 'Ops', dn: groupDn('ops'), role_uids: [3] });
  if (!mapping.ok) throw new Error(`POST /v1/ldap_mappings: ${mapping.status} ${await mapping.text()}`);
  await new Promise((r) => setTimeout(r, 1100)); // the other server reads the settings within a second

  const who = { local: Array.from({ length: PEOPLE }, (_, i) => `user${10 + i}`), ldap: dana };
  const login = (server, names) => ({
    url: `${server.url}/v1/users/authorize`,
    method: 'POST',
    variants: names.map((username) => ({ body: json({ username, password: BENCH_PASSWORD }) })),
  });
  const one = (server, username) => ({
    url: `${server.url}/v1/users/authorize`,
    method: 'POST',
    body: json({ username, password: BENCH_PASSWORD }),
  });
  const read = (server, username) => ({
    url: `${server.url}/v1/users/permissions`,
    headers: { authorization: basic(username, BENCH_PASSWORD) },
  });

  log('warm-up');
  for (const realm of ['local', 'ldap'])
    await closedLoop({ ...login(servers.full, who[realm]), connections: 4, seconds: 2 });

  const figures = { local: { rps: [], p50: [], seq: [], read: [] }, ldap: { rps: [], p50: [], seq: [], read: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const realm of ['local', 'ldap']) {
      log(`round ${round + 1}: ${realm}`);
      const loop = await closedLoop({ ...login(servers.full, who[realm]), connections: 8, seconds: SECONDS / 2 });
      if (loop.non2xx || loop.errors) throw new Error(`${realm} logins: ${loop.non2xx} not 2xx, ${loop.errors} errors`);
      figures[realm].rps.push(loop.rps);
      figures[realm].p50.push(loop.p50);
      figures[realm].seq.push(
        percentile(await sequential({ ...one(servers.full, who[realm][round]), count: SEQUENTIAL / ROUNDS }), 50),
      );
      const cached = await closedLoop({
        ...read(servers.cached, who[realm][0]),
        connections: 32,
        seconds: SECONDS / 4,
      });
      if (cached.non2xx || cached.errors)
        throw new Error(`${realm} cached reads: ${cached.non2xx} not 2xx, ${cached.errors} errors`);
      figures[realm].read.push(cached.rps);
    }
  }
  for (const server of Object.values(servers)) await server.stop();

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [L, D] = [figures.local, figures.ldap];
  const rows = [
    [
      'one login alone, p50 (sequential, one connection)',
      `${f(median(D.seq), 1)} ms`,
      `${f(median(L.seq), 1)} ms`,
      f(median(D.seq) / median(L.seq), 2),
    ],
    ['logins a second (8 connections)', f(mean(D.rps)), f(mean(L.rps)), f(mean(D.rps) / mean(L.rps), 2)],
    [
      'login p50 under that load',
      `${f(median(D.p50))} ms`,
      `${f(median(L.p50))} ms`,
      f(median(D.p50) / median(L.p50), 2),
    ],
    [
      'Basic reads a second from the verified-credentials cache (32 connections)',
      f(mean(D.read)),
      f(mean(L.read)),
      f(mean(D.read) / mean(L.read), 2),
    ],
  ];
  const table = [
    `## LDAP login next to a local one (issues 19, 24)`,
    '',
    `Produced by \`npm run bench:ldap\` (\`node bench/ldap.mjs\`; ${ROUNDS} alternating rounds, ${SECONDS / 2} s of load each) on ${new Date().toISOString()}:`,
    'one server, one real OpenLDAP (slapd) on the same machine, the user DN from a template and its groups from `memberOf`; logins with',
    'the verified-credentials cache off (each pays its whole check: a bind and a search for LDAP, one argon2id verification for a local user).',
    '',
    '| figure | LDAP | local | LDAP / local |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
  console.log(table);
  // The section of the last run replaces the one before.
  const before = readFileSync(results, 'utf8');
  const start = before.indexOf('## LDAP login next to a local one');
  if (start >= 0) {
    const end = before.indexOf('\n## ', start + 1);
    writeFileSync(results, before.slice(0, start) + table + (end >= 0 ? before.slice(end + 1) : ''));
  } else appendFileSync(results, `\n${table}`);
} finally {
  await directory.stop();
  removeTempDirs();
}
