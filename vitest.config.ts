import { defineConfig } from 'vitest/config';

/** Files that compare times or CPU of their own requests: run after the rest, one at a time. */
const ALONE = ['test/http/login-timing.test.ts', 'test/users/password-hasher.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Test files share a worker's loaded modules (nothing of Tessera's is global): a file no
    // longer pays ~1 s to import Fastify, Kysely and the rest again.
    isolate: false,
    projects: [
      {
        extends: true,
        // Two files at a time: most of a file's time is waiting (for a server it started, a
        // directory, a browser, a deadline), during which the other core would idle.
        test: { name: 'together', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: 2 },
      },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
