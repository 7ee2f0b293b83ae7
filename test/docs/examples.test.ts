import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownFiles } from '../../scripts/docsOptions.js';
import { type CliResult, projectRoot, transpiledPath } from '../support/cliProcess.js';
import { describeWithNatsServer } from '../support/natsBus.js';
import { NatsServer } from '../support/natsServer.js';

// Every ```ts block of the README and docs/ is a file of docs/examples, named on the line before
// its fence, with the same text: tsc type-checks the files (tsconfig.json includes the folder, and
// its `paths` resolve `troupe` to the sources), and this runs each as a reader would.

const examplesDir = 'docs/examples';
const markerPattern = /^<!-- example: (docs\/examples\/[\w.-]+\.ts) -->$/;

/** A ```ts block: where it is, the example its marker names (null without one) and its text. */
interface TsFence {
  readonly at: string;
  readonly example: string | null;
  readonly text: string;
}

/** Every ```ts block of a markdown file, with the marker on the line before it. */
function tsFences(file: string): TsFence[] {
  const lines = readFileSync(join(projectRoot, file), 'utf8').split('\n');
  const fences: TsFence[] = [];
  for (let open = 0; open < lines.length; open++) {
    const line = lines[open] ?? '';
    if (!line.startsWith('```')) continue;
    const close = lines.findIndex((candidate, i) => i > open && candidate.startsWith('```'));
    const end = close === -1 ? lines.length : close;
    if (/^```(ts|typescript)\s*$/.test(line)) {
      const example = markerPattern.exec(lines[open - 1] ?? '')?.[1] ?? null;
      fences.push({ at: `${file}:${open + 1}`, example, text: lines.slice(open + 1, end).join('\n') + '\n' });
    }
    open = end;
  }
  return fences;
}

/** What is wrong with one block: no marker, a marker naming no file, or a text that is not the file's. */
function fenceProblem(fence: TsFence): string | null {
  if (fence.example === null) return `${fence.at}: a \`\`\`ts block without \`<!-- example: docs/examples/NAME.ts -->\` on the line before it`;
  const path = join(projectRoot, fence.example);
  if (!existsSync(path)) return `${fence.at}: its marker names ${fence.example}, which does not exist`;
  if (readFileSync(path, 'utf8') !== fence.text) return `${fence.at}: the block differs from ${fence.example} (copy the file's text into it)`;
  return null;
}

const exampleFiles = readdirSync(join(projectRoot, examplesDir))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `${examplesDir}/${file}`)
  .sort();

/** An example that talks to a nats-server (it reads the server's address from NATS_URL). */
const needsNats = (file: string): boolean => readFileSync(join(projectRoot, file), 'utf8').includes('connectNatsTransport');

/** The environment of an example: offline (no model or troupe settings of the caller's), and NATS_URL when given. */
function exampleEnv(natsUrl?: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OPENAI_') && !name.startsWith('TROUPE_')));
  return natsUrl === undefined ? env : { ...env, NATS_URL: natsUrl };
}

/** The longest an example may run before it is stopped: a bound on a hang, not a measure. */
const exampleDeadlineMs = 120_000;

/**
 * Runs one example as node runs a reader's TypeScript through tsx: its JavaScript, transpiled by
 * the same transform for the whole run (`transpiledSources.ts`), from a directory of its own in
 * the system's temp dir, so nothing lands in the project.
 */
async function runExample(file: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const cwd = await mkdtemp(join(tmpdir(), 'troupe-example-'));
  try {
    const child = spawn(process.execPath, [join(projectRoot, transpiledPath(file))], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = setTimeout(() => child.kill('SIGKILL'), exampleDeadlineMs);
    try {
      return await new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });
    } finally {
      clearTimeout(deadline);
    }
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

function expectRanCleanly(file: string, { code, stdout, stderr }: CliResult): void {
  const output = `stdout:\n${stdout.slice(-2000)}\nstderr:\n${stderr.slice(-2000)}`;
  expect(code, `${file} exited with ${String(code)} (null: stopped after ${exampleDeadlineMs} ms)\n${output}`).toBe(0);
  expect(stderr, `${file} wrote an error on stderr\n${output}`).not.toMatch(/error/i);
}

describe('the examples of the README and docs/', () => {
  it('every ```ts block has its example marker and is exactly that file', () => {
    const fences = markdownFiles().flatMap(tsFences);
    expect(fences.length).toBeGreaterThan(0);
    expect(fences.map(fenceProblem).filter((problem) => problem !== null)).toEqual([]);
  });

  it('every file in docs/examples is shown by some page', () => {
    const shown = new Set(markdownFiles().flatMap((file) => tsFences(file).map((fence) => fence.example)));
    expect(exampleFiles.filter((file) => !shown.has(file)).map((file) => `${file} is shown by no ts block of the README or docs/`)).toEqual([]);
  });

  it('finds a block without a marker, and one that differs from its file, naming where', () => {
    const [file] = exampleFiles;
    if (file === undefined) throw new Error('docs/examples has no example');
    const text = readFileSync(join(projectRoot, file), 'utf8');
    expect(fenceProblem({ at: 'README.md:3', example: null, text })).toMatch(/^README\.md:3: a ```ts block without/);
    expect(fenceProblem({ at: 'docs/x.md:9', example: file, text: `${text}// changed\n` })).toBe(
      `docs/x.md:9: the block differs from ${file} (copy the file's text into it)`,
    );
    expect(fenceProblem({ at: 'docs/x.md:9', example: file, text })).toBeNull();
  });

  it.each(exampleFiles.filter((file) => !needsNats(file)))('%s runs offline to the end', { timeout: exampleDeadlineMs + 10_000 }, async (file) => {
    expectRanCleanly(file, await runExample(file, exampleEnv()));
  });
});

describeWithNatsServer('the examples that need a nats-server', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await NatsServer.start();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it.each(exampleFiles.filter(needsNats))('%s runs to the end on a real nats-server', { timeout: exampleDeadlineMs + 10_000 }, async (file) => {
    expectRanCleanly(file, await runExample(file, exampleEnv(server.url)));
  });
});
