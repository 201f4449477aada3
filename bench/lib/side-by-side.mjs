// Two servers of this build loaded at once, scenario by scenario, for some rounds: the ratio of
// their answers a second and of their server CPU an answer (every answer counts, a 401 too).
import { measured } from './base-build.mjs';
import { basic, log } from './common.mjs';
import { BENCH_PASSWORD } from './seed.mjs';

/** Logins that succeed (each one an event), then a flood of wrong passwords (each one a WARNING event). */
export const loginScenarios = (seconds) => ({
  'logins that succeed (POST /v1/users/authorize, 7.4)': (url) => ({
    url: `${url}/v1/users/authorize`,
    method: 'POST',
    body: JSON.stringify({ username: 'user5', password: BENCH_PASSWORD }),
    connections: 4,
    seconds,
  }),
  'a flood of wrong passwords (Basic, 64 connections)': (url) => ({
    url: `${url}/v1/users/authorize`,
    method: 'POST',
    headers: { authorization: basic('user7', 'not-the-password') },
    connections: 64,
    seconds,
  }),
});

/**
 * Markdown rows `| scenario | on/off answers a second | on/off CPU an answer |` for `servers = { on, off }`.
 * `arrange(round)`, when given, makes each round's pair itself (a bench that swaps which process has
 * the feature on, so that one process's luck — its memory layout, what its JIT made — is not the feature's).
 */
export async function sideBySide(servers, scenarios, { rounds, seconds, arrange = async () => servers }) {
  const answers = (x) => x.rps * seconds + x.non2xx;
  const perAnswer = (x) => ({
    rps: answers(x) / seconds,
    cpuUs: (x.cpuUs * Math.max(1, x.rps * seconds)) / Math.max(1, answers(x)),
  });
  const runs = Object.fromEntries(Object.keys(scenarios).map((k) => [k, { on: [], off: [], ratios: [] }]));
  for (let round = 0; round < rounds; round++) {
    log(`round ${round + 1} of ${rounds}`);
    const pair = await arrange(round);
    for (const [label, options] of Object.entries(scenarios)) {
      const results = await Promise.all(['on', 'off'].map((name) => measured(pair[name], options(pair[name].url))));
      runs[label].on.push(results[0]);
      runs[label].off.push(results[1]);
      const ratio = perAnswer(results[0]).cpuUs / perAnswer(results[1]).cpuUs;
      runs[label].ratios.push(ratio);
      log(`  ${label}: CPU an answer, on / off ${ratio.toFixed(3)}`);
    }
  }
  const mean = (list, key) => list.map(perAnswer).reduce((n, r) => n + r[key], 0) / list.length;
  return Object.entries(runs).map(([label, r]) => {
    const [ron, roff] = [mean(r.on, 'rps'), mean(r.off, 'rps')];
    const [con, coff] = [mean(r.on, 'cpuUs'), mean(r.off, 'cpuUs')];
    return `| ${label} | ${(ron / roff).toFixed(3)} (${ron.toFixed(0)} vs ${roff.toFixed(0)} /s) | ${(con / coff).toFixed(3)} ± ${twoStandardErrors(r.ratios).toFixed(3)} (${con.toFixed(0)} vs ${coff.toFixed(0)} µs) |`;
  });
}

/** Two standard errors of the mean of the rounds' ratios: the ratio's margin, about 95 % (0 for one round). */
function twoStandardErrors(values) {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return 2 * Math.sqrt(variance / values.length);
}
