import { inject, it } from 'vitest';
import type { MemoryLogger } from '../../src/logger.js';

const hnswlibLoads = inject('hnswlibLoads');

/**
 * `it` for a test of hnswlib's own index (its file, its graph): it skips where hnswlib-node did
 * not build, and L4 searches exactly (the global setup, `optionalDependencies.ts`, says so once a
 * run, and fails the run instead where CI requires hnswlib).
 */
export function itWithHnswlib(name: string, test: () => Promise<void>, timeout?: number): void {
  it.skipIf(!hnswlibLoads)(name, test, timeout);
}

/** Whether hnswlib-node loads here: where it does not, L4 searches exactly. */
export function hnswlibInstalled(): boolean {
  return hnswlibLoads;
}

/**
 * What `logger` heard above debug, but the one notice that hnswlib-node did not load: a machine
 * without a C++ compiler gives it, rightly, to every logger that opens an L4 with vectors.
 */
export function loggedAboveDebug(logger: MemoryLogger): MemoryLogger['entries'] {
  return logger.entries.filter((entry) => entry.level !== 'debug' && !entry.message.startsWith('hnswlib-node did not load'));
}
