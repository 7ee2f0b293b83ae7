import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { processArgs, transpiledPath } from './support/cliProcess.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The packages loading `module` pulls in, in a fresh Node process (with `env` added to its environment). */
async function packagesLoadedBy(module: string, env: Record<string, string> = {}): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, processArgs('test/support/loadedPackages.ts', [transpiledPath(module)]), {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as string[];
}

// `import 'troupe'` must stay light: the HTTP server, the LMDB store, the inspector, hnswlib and the NATS client load only when used.
describe('what importing troupe loads', () => {
  it('the main entry loads neither Fastify, LMDB, the inspector, hnswlib nor the NATS client', async () => {
    const loaded = await packagesLoadedBy('src/index.ts');
    expect(loaded).toContain('xstate');
    expect(loaded.filter((name) => /^(fastify|lmdb|@lmdb\/|msgpackr|ws$|isomorphic-ws|hnswlib-node|@nats-io\/)/.test(name))).toEqual([]);
  });

  it('an agent memory with no facts does not load hnswlib; its first vector does', async () => {
    expect(await packagesLoadedBy('test/support/factStoreUse.ts')).not.toContain('hnswlib-node');
    expect(await packagesLoadedBy('test/support/factStoreUse.ts', { FACTS: '1' })).toContain('hnswlib-node');
  });

  it('the org store, the server entry and the inspector do load theirs (so the check above can fail)', async () => {
    expect(await packagesLoadedBy('src/org/store.ts')).toContain('lmdb');
    expect(await packagesLoadedBy('src/server/index.ts')).toContain('fastify');
    expect(await packagesLoadedBy('src/cli/inspector.ts')).toContain('ws');
    expect(await packagesLoadedBy('src/bus/transports/natsTransport.ts')).toContain('@nats-io/transport-node');
  });
});
