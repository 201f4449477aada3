// Starting the real CLI server (and baselines) as subprocesses, and reading their RSS.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Whatever a bench started is stopped when it ends, also when it fails half-way. */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts a command and resolves once its stderr (or stdout) says "listening on URL". */
export function startProcess(args, env = {}, command = process.execPath) {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      output += d;
      const m = /listening on (\S+)/i.exec(output);
      if (m) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.resume();
        child.stderr.resume();
        resolve({
          url: m[1],
          /** The management listener (metrics and probes), when the server has one. */
          managementUrl: /Management listener at (\S+) /.exec(output)?.[1],
          pid: child.pid,
          startupMs: performance.now() - started,
          rssMb: () => rssMb(child.pid),
          stop: () =>
            new Promise((r) => {
              child.once('exit', r);
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`)));
  });
}

/**
 * For a side-by-side bench on a machine of two CPUs or more, when `taskset` is there: this process
 * (the load) is kept on the first CPU, and the CPU the servers are to share is answered. Each server
 * then runs beside the other alone, never beside the load half the time: a round's ratio varies
 * half as much. Undefined (nothing pinned) otherwise.
 */
export function pinLoadApart() {
  const cpus = os.availableParallelism();
  if (cpus < 2) return undefined;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    return String(cpus - 1);
  } catch {
    return undefined;
  }
}

/**
 * The CLI as users run it (`npm start`, `npx tessera`): the executable, with its shebang's Node flags;
 * over plain HTTP unless `tls`; on the CPU `cpu` alone when given (pinLoadApart).
 */
export function startTessera(dataDir, extraArgs = [], env = {}, { tls = false, cpu } = {}) {
  const executable = path.join(ROOT, 'dist/cli/main.js');
  const pinned = cpu === undefined ? [] : ['-c', cpu, executable];
  return startProcess(
    [
      ...pinned,
      'serve',
      ...(tls ? [] : ['--no-tls']),
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      '127.0.0.1:0',
      '--data-dir',
      dataDir,
      '--auth-rate-limit',
      '0',
      ...extraArgs,
    ],
    env,
    cpu === undefined ? executable : 'taskset',
  );
}

export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}
