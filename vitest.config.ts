import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/prerequisites.ts'],
    testTimeout: 30_000,
    // Hooks start redis-server, gateway processes and Chromium: a bound for a loaded machine, not a speed check.
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores on CI: more workers only contend for them.
    maxWorkers: 2,
  },
});
