import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, type ServeProcess, startServe } from '../helpers/cli.js';

/**
 * The README's ten-minute tour, run as written against a real server: the ```sh blocks under
 * "## Ten-minute tour", in one bash session, each compared with the output block that follows
 * it. The first block (`npm start`) is the server itself; a text block that begins with `^C` is
 * its stop. In expected output `…` stands for anything, runs of spaces for any run of spaces,
 * and a line that is JSON must match the answer's shape: the same keys, the same types, the
 * same strings (but where they hold `…`), the same booleans and array lengths.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Step {
  command?: string;
  expected?: string;
  kind: 'server' | 'shell' | 'stop';
}

function tourSteps(readme: string): Step[] {
  const start = readme.indexOf('\n## Ten-minute tour\n');
  if (start < 0) throw new Error('the README has no "## Ten-minute tour" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
    from: m.index!,
    to: m.index! + m[0].length,
  }));
  const steps: Step[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.lang === 'sh') {
      const next = blocks[i + 1];
      const follows = next && next.lang !== 'sh' && section.slice(block.to, next.from).trim() === '';
      steps.push({
        kind: steps.length === 0 ? 'server' : 'shell',
        command: block.body,
        expected: follows ? next.body : undefined,
      });
      if (follows) i++;
    } else if (block.body.startsWith('^C\n')) {
      steps.push({ kind: 'stop', expected: block.body.slice('^C\n'.length) });
    } else {
      throw new Error(`an output block that follows no command:\n${block.body}`);
    }
  }
  return steps;
}

const lines = (text: string) => {
  const all = text.split('\n');
  while (all.length > 0 && all.at(-1)!.trim() === '') all.pop();
  return all;
};

const pattern = (expected: string) =>
  new RegExp(
    `^${expected
      .trim()
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'))
      .join('.*')}$`,
    's',
  );

/** Where `actual` differs from the shape of `expected`, or undefined. */
function shapeDiff(expected: unknown, actual: unknown, at = '$'): string | undefined {
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return `${at}: a string expected, got ${JSON.stringify(actual)}`;
    const ok = expected.includes('…') ? pattern(expected).test(actual) : expected === actual;
    return ok ? undefined : `${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`;
  }
  if (typeof expected === 'number') return typeof actual === 'number' ? undefined : `${at}: a number expected`;
  if (expected === null || typeof expected === 'boolean')
    return actual === expected ? undefined : `${at}: ${JSON.stringify(actual)} is not ${expected}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return `${at}: an array of ${expected.length} expected, got ${JSON.stringify(actual)}`;
    for (const [i, item] of expected.entries()) {
      const diff = shapeDiff(item, actual[i], `${at}[${i}]`);
      if (diff) return diff;
    }
    return undefined;
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${at}: an object expected`;
  const want = Object.keys(expected as object).sort();
  const got = Object.keys(actual).sort();
  if (want.join() !== got.join()) return `${at}: keys ${got.join(', ')} are not ${want.join(', ')}`;
  for (const key of want) {
    const diff = shapeDiff((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key]);
    if (diff) return `${at}.${key}: ${diff}`;
  }
  return undefined;
}

/** Where a line of output differs from the expected line, or undefined. */
function lineDiff(expected: string, actual: string): string | undefined {
  let json: unknown;
  try {
    json = /^\s*[[{]/.test(expected) ? JSON.parse(expected) : undefined;
  } catch {
    json = undefined;
  }
  if (json !== undefined) {
    try {
      return shapeDiff(json, JSON.parse(actual));
    } catch {
      return `not JSON: ${actual}`;
    }
  }
  if (expected.trim() === '' && actual.trim() === '') return undefined;
  return pattern(expected).test(actual.trim())
    ? undefined
    : `${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`;
}

function outputDiff(expected: string, actual: string): string | undefined {
  const want = lines(expected);
  const got = lines(actual);
  if (want.length !== got.length) return `${got.length} lines, not ${want.length}:\n${actual}`;
  for (const [i, line] of want.entries()) {
    const diff = lineDiff(line, got[i]!);
    if (diff) return `line ${i + 1}: ${diff}`;
  }
  return undefined;
}

describe("the README's ten-minute tour", () => {
  const steps = tourSteps(README);
  let cwd: string;
  let server: ServeProcess;
  let ports: [string, string][];

  beforeAll(async () => {
    // `npm start` as the tour's first terminal runs it: the defaults, ./data in the working directory.
    cwd = mkdtempSync(path.join(tmpdir(), 'tessera-tour-'));
    server = await startServe([], { ...FAST_ARGON2_ENV }, cwd);
    const metrics = /Management listener at http:\/\/([^\s/]+)/.exec(server.stderr())?.[1];
    ports = [
      ['127.0.0.1:9443', new URL(server.url).host],
      ['127.0.0.1:9464', metrics ?? 'no-metrics-listener'],
    ];
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  const local = (text: string) => ports.reduce((t, [from, to]) => t.replaceAll(from, to), text);

  it('has the steps: a start, commands with their output, a stop', () => {
    expect(steps[0]).toMatchObject({ kind: 'server', command: 'npm start\n' });
    expect(steps.at(-1)?.kind).toBe('stop');
    expect(steps.filter((s) => s.kind === 'shell').length).toBeGreaterThanOrEqual(8);
    expect(README).toMatch(/^read -rs PASSWORD$/m);
  });

  it('starts as the first step shows', async () => {
    const expected = lines(local(steps[0]!.expected ?? ''));
    // npm's banner and the JSON log lines are standard output; the rest is standard error.
    const toStdout = expected.filter((line) => line.startsWith('{'));
    const toStderr = expected.filter((line) => !line.startsWith('> ') && !line.startsWith('{'));
    while (toStderr[0]?.trim() === '') toStderr.shift();
    // Here standard error is a pipe, not the tour's terminal: the server adds its note for supervisors.
    const said = lines(server.stderr()).filter((line) => !line.startsWith('Standard error is not a terminal'));
    expect(outputDiff(toStderr.join('\n'), said.join('\n'))).toBeUndefined();
    // The JSON log is written asynchronously: give it a moment.
    const logged = (line: string) => lines(server.stdout()).some((l) => !lineDiff(line, l));
    for (let waited = 0; waited < 2000 && !toStdout.every(logged); waited += 50) await sleep(50);
    for (const line of toStdout) expect(logged(line), `${line}\n${server.stdout()}`).toBe(true);
  });

  it('runs every command as written, each printing what the README shows', () => {
    const password = /shown this once only.*\n\n {4}(\S+)\n/.exec(server.stderr())?.[1];
    expect(password).toBeDefined();
    const shell = steps.filter((s) => s.kind === 'shell');
    const script = [
      'set -eo pipefail',
      ...shell.flatMap((s, i) => [`printf '\\n@@@${i}\\n'`, local(s.command!)]),
      `printf '\\n@@@end\\n'`,
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('TESSERA_')) delete env[key];
    // The store the server made under its working directory, for the CLI run in the checkout.
    env.TESSERA_DATA_DIR = path.join(cwd, 'data');
    const res = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      env,
      input: `${password}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const parts = res.stdout.split(/\n@@@(\d+|end)\n/);
    const outputs = new Map<string, string>();
    for (let i = 1; i < parts.length; i += 2) outputs.set(parts[i]!, parts[i + 1] ?? '');
    const reached = [...outputs.keys()].filter((k) => k !== 'end').length;
    expect(
      res.status,
      `the tour stopped in step ${reached}:\n${shell[reached - 1]?.command}\n${res.stdout.slice(-2000)}\n${res.stderr}`,
    ).toBe(0);
    for (const [i, step] of shell.entries()) {
      const diff = outputDiff(local(step.expected ?? ''), outputs.get(String(i)) ?? '');
      expect(diff, `the output of\n${step.command}`).toBeUndefined();
    }
  }, 60_000);

  it('stops as the last step shows', async () => {
    const before = server.stderr().length;
    expect(await server.stop('SIGINT')).toBe(0);
    expect(outputDiff(steps.at(-1)!.expected!, server.stderr().slice(before))).toBeUndefined();
  });
});
