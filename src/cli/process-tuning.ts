import { availableParallelism } from 'node:os';

// This module is the CLI's first import: what it sets must be set before anything runs.
// (V8 flags cannot be set this late; those are on the shebang line of main.ts.)

// argon2id runs in libuv's thread pool. One thread a core keeps hashing from starving the
// event loop (Node's default is 4). UV_THREADPOOL_SIZE set by the user wins.
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism());
