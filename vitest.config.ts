import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Five tiers, each runnable alone (`npm run test:<tier>`); `npm test` runs them all. */
export default defineConfig({
  test: {
    // One file more than the cores: most files wait on their runtime's queue and timers much of
    // the time, so a 2-core machine runs three at once (vitest's default would be one).
    maxWorkers: availableParallelism() + 1,
    // The HTTP stack checks every request against the API reference's schemas (shared/http/schema-check.ts).
    env: { SESAME_CHECK_SCHEMAS: '1' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Bounds on a hang, not durations to meet: a test awaits conditions, and on a machine
          // whose cores others keep busy a long one takes several times its quiet duration.
          testTimeout: 60_000,
          hookTimeout: 60_000,
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
          // Headless Chromium (Debian's package) on the local inbox; skipped, saying so, without one.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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
