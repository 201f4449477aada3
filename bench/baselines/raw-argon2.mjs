// The physical limit: @node-rs/argon2 verifications at OWASP parameters, as many at once as
// the thread pool runs, for the given seconds. Prints verifications per second.
import { hash, verify } from '@node-rs/argon2';

const seconds = Number(process.argv[2] ?? 8);
const parallel = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
const h = await hash('bench-password-1', { memoryCost: 19456, timeCost: 2, parallelism: 1 });
let done = 0;
const end = performance.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: parallel }, async () => {
    while (performance.now() < end) {
      await verify(h, 'bench-password-1');
      done++;
    }
  }),
);
console.log(JSON.stringify({ rate: done / seconds }));
