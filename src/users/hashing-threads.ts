import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Argon2Params } from '../config/config.js';

/** How much lower than the event loop's a hashing thread's scheduling priority is (nice; 19 is the lowest). */
const NICENESS = 10;
/** A thread that has had nothing to do for this long ends; the next hash starts one again (~30 ms). */
const IDLE_MS = 60_000;

export type HashJob =
  | { op: 'hash'; password: string; params: Argon2Params }
  | { op: 'verify'; hash: string; password: string };

interface Thread {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
  /** The job it runs now. */
  running?: { resolve(value: string | boolean): void; reject(err: Error): void };
}

/**
 * argon2id (@node-rs/argon2's synchronous calls) on threads of their own, each at a lower
 * scheduling priority than the event loop: on a machine whose cores the hashes fill, the
 * event loop still gets a core when it has work (answering a token read, starting the next
 * hash, signing a token), and the hashes get every cycle it leaves — instead of the libuv
 * pool's threads, which run at the event loop's priority and take turns with it. The caller
 * (Admission) runs no more jobs at once than `size`. Threads start when first needed and end
 * after a minute of idleness, so that an idle node carries none.
 */
export class HashingThreads {
  private readonly threads: Thread[] = [];

  constructor(private readonly size: number) {}

  run(job: HashJob): Promise<string | boolean> {
    const thread = this.threads.find((t) => !t.running) ?? this.start();
    clearTimeout(thread.idleTimer);
    return new Promise((resolve, reject) => {
      thread.running = { resolve, reject };
      thread.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.splice(0).map((t) => {
        clearTimeout(t.idleTimer);
        return t.worker.terminate();
      }),
    );
  }

  private start(): Thread {
    if (this.threads.length >= this.size) throw new Error(`more than ${this.size} hashes at once`);
    // The thread's code is the function below, which imports nothing: @node-rs/argon2 is
    // resolved from this module's place, in the sources as in the build.
    const worker = new Worker(`(${hashingThread.toString()})()`, {
      eval: true,
      workerData: { from: fileURLToPath(import.meta.url), niceness: NICENESS },
    });
    worker.unref();
    const thread: Thread = { worker };
    this.threads.push(thread);
    const done = () => {
      thread.running = undefined;
      thread.idleTimer = setTimeout(() => this.end(thread), IDLE_MS).unref();
    };
    worker.on('message', (answer: { value: string | boolean } | { error: string }) => {
      const running = thread.running;
      done();
      if ('error' in answer) running?.reject(new Error(answer.error));
      else running?.resolve(answer.value);
    });
    worker.on('error', (err) => {
      thread.running?.reject(err);
      this.end(thread);
    });
    return thread;
  }

  private end(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
    void thread.worker.terminate();
  }
}

/** A hashing thread: lowers its own priority (on Linux, setpriority of 0 is the calling thread), then hashes what it is sent. */
function hashingThread(): void {
  const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
  const { createRequire } = process.getBuiltinModule('node:module');
  const { setPriority } = process.getBuiltinModule('node:os');
  const { from, niceness } = workerData as { from: string; niceness: number };
  try {
    setPriority(0, niceness);
  } catch {
    // not allowed here: it hashes at the event loop's priority, as the libuv pool would
  }
  const argon2 = createRequire(from)('@node-rs/argon2') as typeof import('@node-rs/argon2');
  parentPort!.on('message', (job: HashJob) => {
    try {
      const value =
        job.op === 'hash' ? argon2.hashSync(job.password, job.params) : argon2.verifySync(job.hash, job.password);
      parentPort!.postMessage({ value });
    } catch (err) {
      parentPort!.postMessage({ error: String(err) });
    }
  });
}
