import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);
let out = '';

// The published .d.ts files come from `tsconfig.build.json` (stripInternal): they must leave
// out what is marked @internal and still type-check for a user who imports them.
beforeAll(async () => {
  // Inside the project, so the emitted files resolve xstate, rxjs and zod from its node_modules.
  await mkdir(join(root, 'build'), { recursive: true });
  out = await mkdtemp(join(root, 'build', 'declarations-'));
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--outDir', out], { cwd: root });
}, 120_000);

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

  it('type-check a program that uses the public API', async () => {
    const program = join(out, 'consumer.ts');
    await writeFile(
      program,
      [
        "import { type AgentState, createRuntime, defineTool } from './src/index.js';",
        "import { createHttpServer } from './src/server/index.js';",
        "import { societyOf } from './src/testing.js';",
        "import { z } from 'zod';",
        "const tool = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => ({ content: text }) });",
        'const rt = await createRuntime({ tools: [tool] });',
        'const states: AgentState[] = rt.agents().map((agent) => agent.state);',
        'const roles: string[] = rt.roles().map((role) => role.name);',
        'const live: string[] = societyOf(rt).liveIds();',
        'const server = createHttpServer(rt);',
        'export { states, roles, live, server };',
      ].join('\n'),
    );
    const args = [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', program];
    // lmdb's own declarations do not type-check as ESM (its `export =`): only errors in ours count.
    const errors = await run(process.execPath, args, { cwd: root }).then(
      () => [],
      (failure: unknown) =>
        String((failure as { stdout?: unknown }).stdout)
          .split('\n')
          .filter((line) => line.includes('error TS') && !line.startsWith('node_modules/')),
    );
    expect(errors).toEqual([]);
  }, 120_000);
});
