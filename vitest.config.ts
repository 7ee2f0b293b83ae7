import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JavaScript of src/, machines/ and test/ for the processes tests spawn, and whether
    // nats-server and hnswlib-node are there for the tests that need them (see the files).
    globalSetup: ['test/support/transpiledSources.ts', 'test/support/optionalDependencies.ts'],
    // Integration tests spawn child processes and real servers; keep them honest, not hurried.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A worker per core. Vitest's default is one fewer, which on a 2-core machine runs every file
    // in series (7m47s here); most files spend their time waiting on child processes, servers and
    // fsync, so two workers took 5m00s, with every test passing.
    maxWorkers: availableParallelism(),
    // Test files in one worker share its module graph instead of importing it afresh each
    // (about 15% of a run): no test relies on module state, and none stubs globals or modules.
    isolate: false,
  },
});
