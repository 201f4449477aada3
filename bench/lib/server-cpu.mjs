// What a server spends on an answer: user and system CPU of its main thread, and of every thread
// of the process (garbage collection and the thread pool too), from /proc, over a closed-loop run.
import { readFileSync } from 'node:fs';
import { closedLoop } from './load.mjs';

const TICK_US = 10_000; // /proc's clock ticks (USER_HZ 100)

/** User and system CPU of a process's main thread, and of all its threads, in µs. */
export function cpu(pid) {
  const read = (file) => readFileSync(file, 'utf8').split(') ')[1].split(' ');
  const [main, all] = [read(`/proc/${pid}/task/${pid}/stat`), read(`/proc/${pid}/stat`)];
  return {
    user: Number(main[11]) * TICK_US,
    system: Number(main[12]) * TICK_US,
    total: (Number(all[11]) + Number(all[12])) * TICK_US,
  };
}

/** A second of warm-up, then `seconds` of 32 connections: answers a second and the server's CPU an answer (µs). */
export async function measure(server, url, headers, seconds) {
  await closedLoop({ url, headers, connections: 32, seconds: 1 }); // warm-up
  const before = cpu(server.pid);
  const run = await closedLoop({ url, headers, connections: 32, seconds });
  const after = cpu(server.pid);
  const answers = run.rps * seconds;
  if (run.non2xx || run.errors) throw new Error(`${url}: ${run.non2xx} not 2xx, ${run.errors} errors`);
  return {
    rps: run.rps,
    user: (after.user - before.user) / answers,
    system: (after.system - before.system) / answers,
    total: (after.total - before.total) / answers,
  };
}

/** The median of numbers. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
