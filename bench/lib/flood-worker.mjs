// Runs an open-loop load in a thread of its own, so that the probes measured beside it are
// not delayed by the load generator's own event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { openLoop } from './load.mjs';

const byStatus = await openLoop(workerData);
parentPort.postMessage([...byStatus.entries()]);
