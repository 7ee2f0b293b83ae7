import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn child processes and real servers; keep them honest, not hurried.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
