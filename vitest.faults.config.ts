import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`): real serve and worker processes on a real redis-server that the tests stop,
 * restart and starve. Kept apart from `npm test` so that suite's run time stays what it is. One file at a time: each
 * scenario measures timings (lock expiry, backoff) that contention on two cores would blur.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    globalSetup: ['test/helpers/prerequisites.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
