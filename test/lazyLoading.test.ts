import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { processArgs, transpiledPath } from './support/cliProcess.js';
import { itWithHnswlib } from './support/hnswlibTests.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The packages loading `module` pulls in, in a fresh Node process (with `env` added to its environment). */
async function packagesLoadedBy(module: string, env: Record<string, string> = {}): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, processArgs('test/support/loadedPackages.ts', [transpiledPath(module)]), {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as string[];
}

/** The packages `troupe <args>` loaded by the time it exited (its exit code is not the point here). */
async function packagesLoadedByCli(args: readonly string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-loaded-'));
  try {
    const file = join(dir, 'packages.json');
    const preload = pathToFileURL(join(root, transpiledPath('test/support/reportLoadedAtExit.ts'))).href;
    await promisify(execFile)(process.execPath, ['--import', preload, transpiledPath('src/cli/main.ts'), ...args], {
      cwd: root,
      env: { ...process.env, LOADED_PACKAGES_FILE: file, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
    }).catch(() => undefined);
    return JSON.parse(await readFile(file, 'utf8')) as string[];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const heavy = /^(fastify|lmdb|@lmdb\/|msgpackr|ws$|isomorphic-ws|hnswlib-node|@nats-io\/|xstate)/;

describe('what the CLI loads', () => {
  it('loads a command when it runs: --version, --help and a refused command line load no store, runtime, HTTP server or NATS client', async () => {
    for (const args of [
      ['--version'],
      ['--help'],
      ['node', '--nats', 'nats://127.0.0.1:1'],
      ['memory', 'root', '--tier', 'l9'],
      ['graph', 'root', '--depth', '-1'],
    ]) {
      const loaded = await packagesLoadedByCli(args);
      expect(loaded).toContain('commander');
      expect(loaded.filter((name) => heavy.test(name))).toEqual([]);
    }
  });

  it('a command that runs the society loads it all (so the check above can fail)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-loaded-run-'));
    try {
      const loaded = await packagesLoadedByCli(['run', 'write a haiku', '--data-dir', dataDir, '--no-status']);
      expect(loaded).toEqual(expect.arrayContaining(['lmdb', 'xstate']));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// `import 'troupe'` must stay light: the HTTP server, the LMDB store, the inspector, hnswlib, the
// NATS client, the MCP SDK and the tokenizer's table (most of the memory and start-up time the
// import would add) load only when used.
describe('what importing troupe loads', () => {
  it('the main entry loads neither Fastify, LMDB, the inspector, hnswlib, the NATS client, the MCP SDK nor the tokenizer', async () => {
    const loaded = await packagesLoadedBy('src/index.ts');
    expect(loaded).toEqual(expect.arrayContaining(['xstate', 'zod']));
    expect(
      loaded.filter((name) =>
        /^(fastify|lmdb|@lmdb\/|msgpackr|ws$|isomorphic-ws|hnswlib-node|@nats-io\/|@modelcontextprotocol\/|ajv|gpt-tokenizer)/.test(name),
      ),
    ).toEqual([]);
  });

  it('the first count of tokens loads the tokenizer', async () => {
    expect(await packagesLoadedBy('test/support/tokenCountUse.ts')).toContain('gpt-tokenizer');
  });

  itWithHnswlib('an agent memory with no facts does not load hnswlib; its first vector does', async () => {
    expect(await packagesLoadedBy('test/support/factStoreUse.ts')).not.toContain('hnswlib-node');
    expect(await packagesLoadedBy('test/support/factStoreUse.ts', { FACTS: '1' })).toContain('hnswlib-node');
  });

  it('the org store, the server entry and the inspector do load theirs (so the check above can fail)', async () => {
    expect(await packagesLoadedBy('src/org/store.ts')).toContain('lmdb');
    expect(await packagesLoadedBy('src/server/index.ts')).toContain('fastify');
    expect(await packagesLoadedBy('src/cli/inspector.ts')).toContain('ws');
    expect(await packagesLoadedBy('src/bus/transports/natsTransport.ts')).toContain('@nats-io/transport-node');
    expect(await packagesLoadedBy('src/tools/mcp/mcpConnection.ts')).toContain('@modelcontextprotocol/sdk');
  });
});
