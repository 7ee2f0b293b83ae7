import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { silentLogger } from '../../src/logger.js';
import { loadHnswlib } from '../../src/memory/facts/hnswIndex.js';
import { chromiumPath } from './chromiumPath.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Whether `nats-server` runs from this process's PATH, so the tests that start one can. */
    natsServerOnPath: boolean;
    /** Whether hnswlib-node loads (its native build ran), so the tests of hnswlib's own index can run. */
    hnswlibLoads: boolean;
    /** Whether Debian's Chromium is at `chromiumPath`, so the dashboard's browser tests can drive it. */
    chromiumPresent: boolean;
  }
}

/** Whether the environment variable `name` is set to something other than empty or `0`. */
const isSet = (name: string): boolean => !['', '0', undefined].includes(process.env[name]);

/**
 * One of the things troupe's tests use that a machine with only Node and npm lacks: without
 * it its tests skip, and this says so in one line with how to run them; where `required` (a
 * variable `.ci/run` sets) names a set variable, its absence fails the run instead, so CI cannot
 * pass by skipping them.
 */
function check(present: boolean, missing: { what: string; skipped: string; fix: string; required: string }): void {
  if (present) return;
  if (isSet(missing.required)) throw new Error(`${missing.what}, and ${missing.required} is set: ${missing.fix}`);
  process.stderr.write(`${missing.skipped} skipped: ${missing.what}. To run them, ${missing.fix}; ${missing.required}=1 makes this a failure.\n`);
}

/**
 * Vitest's global setup: looks once a run for nats-server (the NATS transport's tests start one),
 * hnswlib-node (a C++ compiler builds it; without it L4 searches exactly, and the tests of
 * hnswlib's index file skip) and Chromium (the dashboard's browser tests drive it), and provides
 * the answers (`describeWithNatsServer`, `itWithHnswlib`, `describeWithChromium`).
 */
export default async function checkOptionalDependencies(project: TestProject): Promise<void> {
  const natsServerOnPath = spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).error === undefined;
  check(natsServerOnPath, {
    what: 'nats-server is not on PATH',
    skipped: 'NATS tests',
    fix: 'install it (Debian/Ubuntu: apt-get install nats-server; others: docs/install.md)',
    required: 'TROUPE_REQUIRE_NATS_SERVER',
  });
  const hnswlibLoads = (await loadHnswlib(silentLogger)) !== null;
  check(hnswlibLoads, {
    what: 'hnswlib-node did not load (its build needs a C++ compiler), so L4 searches exactly',
    skipped: "Tests of hnswlib's index",
    fix: 'install a C++ compiler (Debian/Ubuntu: apt-get install build-essential python3), then npm install again',
    required: 'TROUPE_REQUIRE_HNSWLIB',
  });
  const chromiumPresent = existsSync(chromiumPath);
  check(chromiumPresent, {
    what: `Chromium is not at ${chromiumPath}`,
    skipped: "The dashboard's browser tests",
    fix: 'install it (Debian/Ubuntu: apt-get install chromium)',
    required: 'TROUPE_REQUIRE_CHROMIUM',
  });
  project.provide('natsServerOnPath', natsServerOnPath);
  project.provide('chromiumPresent', chromiumPresent);
  project.provide('hnswlibLoads', hnswlibLoads);
}
