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
