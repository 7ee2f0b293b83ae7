import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { processArgs } from '../support/cliProcess.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = tempDirsAfterEach('troupe-writer-retention-');

// The org store's writer chains each write behind the ones before it. Chained with the results
// of `Promise.all`, every write left an array nested in the next one's: about 70 bytes of heap
// per write, forever (the soak's live heap grew 1.6 MB a minute at 10 Tasks a second).
describe("the org store's writer", () => {
  it('holds no heap for writes that have settled (measured over 20,000 writes)', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', ...processArgs('test/org/writerRetention.ts', [dir, '20000'])], {
      cwd: root,
    });
    const { writes, bytesPerWrite } = JSON.parse(stdout) as { writes: number; bytesPerWrite: number };
    console.info(`org store writer: ${bytesPerWrite.toFixed(1)} bytes of heap held per settled write over ${writes} writes`);
    expect(writes).toBe(20_000);
    expect(bytesPerWrite).toBeLessThan(24);
  });
});
