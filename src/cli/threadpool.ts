import { availableParallelism } from 'node:os';

// argon2id runs in libuv's thread pool. One thread a core keeps hashing from starving the
// event loop (Node's default is 4). It must be set before the pool first starts, so this
// module is the CLI's first import; UV_THREADPOOL_SIZE set by the user wins.
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism());
