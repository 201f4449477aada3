import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Test files share a worker's loaded modules (nothing of Tessera's is global): a file no
    // longer pays ~1 s to import Fastify, Kysely and the rest again.
    isolate: false,
  },
});
