import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The packages loading `module` pulls in, in a fresh Node process. */
async function packagesLoadedBy(module: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/loadedPackages.ts', module], { cwd: root });
  return JSON.parse(stdout) as string[];
}

// `import 'troupe'` must stay light: the HTTP server, the LMDB store and the inspector load only when used.
describe('what importing troupe loads', () => {
  it('the main entry loads neither Fastify, LMDB nor the inspector', async () => {
    const loaded = await packagesLoadedBy('src/index.ts');
    expect(loaded).toContain('xstate');
    expect(loaded.filter((name) => /^(fastify|lmdb|@lmdb\/|msgpackr|ws$|isomorphic-ws)/.test(name))).toEqual([]);
  });

  it('the org store, the server entry and the inspector do load theirs (so the check above can fail)', async () => {
    expect(await packagesLoadedBy('src/org/store.ts')).toContain('lmdb');
    expect(await packagesLoadedBy('src/server/index.ts')).toContain('fastify');
    expect(await packagesLoadedBy('src/cli/inspector.ts')).toContain('ws');
  });
});
