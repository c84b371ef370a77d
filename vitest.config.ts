import { defineConfig } from 'vitest/config';

/** Four tiers, each runnable alone (`npm run test:<tier>`); `npm test` runs them all. */
export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'crash',
          include: ['test/crash/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // Each file runs runtimes as child processes and kills them mid-work; on a 2-core
          // machine, two such files at once would make the kill points and timings flaky.
          // (Files without file parallelism also run after the other tiers' files.)
          fileParallelism: false,
        },
      },
    ],
  },
});
