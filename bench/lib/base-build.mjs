// A build of another revision beside this one, and the server CPU an answer costs: for
// benches that compare this build with an earlier one side by side, in one run.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closedLoop } from './load.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The revision's checkout, built in a worktree of its own (node_modules shared with this one). */
export function baseBuild(rev, log = () => {}) {
  const dir = path.join(os.tmpdir(), `tessera-bench-base-${rev}`);
  if (!existsSync(path.join(dir, 'dist/cli/main.js'))) {
    log(`building ${rev} in ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: ROOT });
    execFileSync('git', ['worktree', 'add', '--detach', dir, rev], { cwd: ROOT, stdio: 'ignore' });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir });
  }
  chmodSync(path.join(dir, 'dist/cli/main.js'), 0o755);
  return { dir, cli: path.join(dir, 'dist/cli/main.js') };
}

/** CPU time (user + system) a process has used, in ms: steadier than a rate on a shared machine. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

/** A closed loop, with the server's CPU µs per answer. */
export async function measured(server, options) {
  const before = cpuMs(server.pid);
  const result = await closedLoop(options);
  return { ...result, cpuUs: ((cpuMs(server.pid) - before) * 1000) / Math.max(1, result.rps * options.seconds) };
}
