import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);
let out = '';

// The published files come from `tsconfig.build.json`: the .d.ts files (stripInternal) must leave
// out what is marked @internal and still type-check for a user who imports them, and the source
// maps must resolve with only dist/ shipped.
beforeAll(async () => {
  // Inside the project, so the emitted files resolve xstate, rxjs and zod from its node_modules.
  await mkdir(join(root, 'build'), { recursive: true });
  out = await mkdtemp(join(root, 'build', 'declarations-'));
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], { cwd: root });
  // Timeouts here guard against a hang: a whole tsc build takes minutes on a loaded 2-core machine.
}, 600_000);

afterAll(async () => {
  if (out !== '') await rm(out, { recursive: true, force: true });
});

describe('published declarations', () => {
  it('leave out what is marked @internal', async () => {
    const runtime = await readFile(join(out, 'src/runtime/runtime.d.ts'), 'utf8');
    expect(runtime).toContain('createRole(');
    expect(runtime).not.toMatch(/static create\(/);
    const journal = await readFile(join(out, 'src/runtime/journal/journal.d.ts'), 'utf8');
    expect(journal).toContain('interface Journal');
    expect(journal).not.toMatch(/declare const memoryJournal/);
  });

  it('type-check a program that uses the public API, under exactOptionalPropertyTypes with skipLibCheck off', async () => {
    const program = join(out, 'consumer.ts');
    await writeFile(
      program,
      [
        "import { type AgentState, createRuntime, defineTool } from './src/index.js';",
        "import { createHttpServer } from './src/server/index.js';",
        "import { societyOf } from './src/testing.js';",
        "import * as machines from './machines/index.js';",
        "import { z } from 'zod';",
        "const tool = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => ({ content: text }) });",
        'const rt = await createRuntime({ tools: [tool] });',
        'const states: AgentState[] = rt.agents().map((agent) => agent.state);',
        'const roles: string[] = rt.roles().map((role) => role.name);',
        'const live: string[] = societyOf(rt).liveIds();',
        'const server = createHttpServer(rt);',
        'export { states, roles, live, server, machines };',
      ].join('\n'),
    );
    // The strictest settings a user may compile with: every declaration file checked, and an
    // optional property that may not be given `undefined` unless its type says so.
    const strictest = ['--strict', '--exactOptionalPropertyTypes', '--skipLibCheck', 'false'];
    const args = [tsc, '--noEmit', ...strictest, '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', program];
    const errors = await run(process.execPath, args, { cwd: root }).then(
      () => [],
      (failure: unknown) =>
        String((failure as { stdout?: unknown }).stdout)
          .split('\n')
          .filter((line) => line.includes('error TS')),
    );
    expect(errors.filter((line) => !line.includes('node_modules/'))).toEqual([]);
    // Two dependencies' declarations fail there on their own (docs/install.md): lmdb's ES module
    // types end in `export =`, and xstate's setup.d.ts breaks under exactOptionalPropertyTypes.
    expect(errors.filter((line) => !/node_modules\/(lmdb|xstate)\//.test(line))).toEqual([]);
  }, 600_000);
});

describe('published source maps', () => {
  it('carry the source of every file they map to, as it is in the repository', async () => {
    const maps = (await readdir(out, { recursive: true })).filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    for (const file of maps) {
      const map = JSON.parse(await readFile(join(out, file), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      // The package ships dist/ only: the sources the map names are not in it, so the map holds them.
      expect({ file, contents: map.sourcesContent?.length }).toEqual({ file, contents: map.sources.length });
      for (const [i, source] of map.sources.entries()) {
        expect(map.sourcesContent?.[i]).toBe(await readFile(resolve(dirname(join(out, file)), source), 'utf8'));
      }
    }
  });
});

describe('the package', () => {
  it('ships dist/, the README, the LICENSE and package.json, nothing else', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
    const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    const paths = (pack?.files ?? []).map((entry) => entry.path);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(paths.filter((path) => !path.startsWith('dist/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
  }, 60_000);

  it('takes zod as a peer dependency (^4), so tools are checked with the zod the application uses', async () => {
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    expect(manifest['peerDependencies']).toEqual({ zod: '^4.0.0' });
    expect(manifest['dependencies']?.['zod']).toBeUndefined();
  });
});
