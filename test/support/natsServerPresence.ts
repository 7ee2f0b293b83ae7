import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';

/** Set (to any value but `0` or empty) where a missing `nats-server` must fail the run instead of skipping its tests: `.ci/run` sets it. */
const requireNatsServerVariable = 'TROUPE_REQUIRE_NATS_SERVER';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Whether `nats-server` runs from this process's PATH, so the tests that start one can. */
    natsServerOnPath: boolean;
  }
}

/**
 * Vitest's global setup: looks for `nats-server` once a run. Without it the tests that start one
 * skip (`describeWithNatsServer`), and this prints the one line that says so and how to run them;
 * with `TROUPE_REQUIRE_NATS_SERVER` set its absence fails the run instead, so CI cannot pass by
 * skipping them.
 */
export default function checkNatsServer(project: TestProject): void {
  const onPath = spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).error === undefined;
  const required = !['', '0', undefined].includes(process.env[requireNatsServerVariable]);
  if (!onPath && required) {
    throw new Error(
      `nats-server is not on PATH and ${requireNatsServerVariable} is set: install it (Debian/Ubuntu: apt-get install nats-server) to run the NATS tests`,
    );
  }
  if (!onPath) {
    process.stderr.write(
      `NATS tests skipped: nats-server is not on PATH. To run them, install it (Debian/Ubuntu: apt-get install nats-server; others: docs/install.md); ${requireNatsServerVariable}=1 makes its absence a failure.\n`,
    );
  }
  project.provide('natsServerOnPath', onPath);
}
