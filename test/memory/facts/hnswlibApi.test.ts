import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

// troupe declares the part of hnswlib-node's API it uses (hnswlibApi.ts), so that it compiles
// where the package did not build; wherever it did, the package's own declarations must fit it.
describe("troupe's declaration of hnswlib-node", () => {
  itWithHnswlib(
    "is what the package's own declarations give",
    async () => {
      await mkdir(join(root, 'build'), { recursive: true });
      const dir = await mkdtemp(join(root, 'build', 'hnswlib-api-'));
      try {
        const program = join(dir, 'fits.ts');
        const api = join(root, 'src/memory/facts/hnswlibApi.js');
        await writeFile(program, `import hnswlib from 'hnswlib-node';\nimport type { Hnswlib } from '${api}';\nexport const fits: Hnswlib = hnswlib;\n`);
        const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
        const args = [
          tsc,
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--types',
          'node',
          program,
        ];
        const output = await promisify(execFile)(process.execPath, args, { cwd: root }).then(
          () => '',
          (failure: unknown) => String((failure as { stdout?: unknown }).stdout),
        );
        expect(output).toBe('');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
