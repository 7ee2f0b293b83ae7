import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Registers an afterEach that runs, newest first, what the test handed to the returned function
 * (close a server, remove a temp dir, stop a process), so a failing test still cleans up.
 */
export function cleanupAfterEach(): (cleanup: () => Promise<void>) => void {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}

/** Makes temp dirs (named `<prefix>…`) that are removed after each test. */
export function tempDirsAfterEach(prefix: string): () => Promise<string> {
  const later = cleanupAfterEach();
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    later(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
}
