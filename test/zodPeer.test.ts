import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { processArgs, transpiledPath } from './support/cliProcess.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs `script` (a TypeScript file of the project, transpiled) with `args`, in a project whose `zod` is zod 3 when `zod3` is set. */
async function run(script: string, args: readonly string[], zod3: boolean): Promise<{ code: number; stderr: string }> {
  const preload = ['--import', `./${transpiledPath('test/support/swappedPackages.ts')}`];
  const env = { ...process.env, SWAPPED_PACKAGES: JSON.stringify(zod3 ? { zod: 'zod-v3' } : {}) };
  return promisify(execFile)(process.execPath, [...preload, ...processArgs(script, args)], { cwd: root, env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (failure: unknown) => {
      const { code, stderr } = failure as { code?: number; stderr?: string };
      return { code: code ?? -1, stderr: stderr ?? '' };
    },
  );
}

// zod is a peer dependency (^4). A project on zod 3 (npm installs one with --legacy-peer-deps)
// hears so from whichever entry it loads first, not `z.json is not a function` from inside.
describe('a project whose zod is zod 3', () => {
  const refusal = 'troupe needs zod 4 (its peer dependency, zod@^4.0.0), and this project resolves `zod` to zod 3: npm install zod@^4';

  it('is told at once by every entry point, and the CLI, what to install', async () => {
    for (const entry of ['src/index.ts', 'src/testing.ts', 'src/server/index.ts']) {
      const { code, stderr } = await run('test/support/loadedPackages.ts', [transpiledPath(entry)], true);
      expect({ entry, code, refused: stderr.includes(refusal) }).toEqual({ entry, code: 1, refused: true });
    }
    const cli = await run('src/cli/main.ts', ['--version'], true);
    expect({ code: cli.code, refused: cli.stderr.includes(refusal) }).toEqual({ code: 1, refused: true });
  });

  it('while the same programs load on zod 4', async () => {
    expect(await run('test/support/loadedPackages.ts', [transpiledPath('src/index.ts')], false)).toEqual({ code: 0, stderr: '' });
    expect((await run('src/cli/main.ts', ['--version'], false)).code).toBe(0);
  });
});
