/**
 * One side of the HTTP benchmark in a process of its own, so the load generator does not share
 * its event loop: `troupe` (the HTTP API on a memory-only runtime), `troupe-durable` (the same
 * with an org store in a temp dir: each submit waits for its fsync'd write) or `bare` (Fastify
 * answering constants of the same shape). Prints `{"url": …}` on stdout once listening, answers
 * each line on stdin with `{"cpuMicros": …}`, and exits when its stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { ChatDelta, ModelClient } from '../../src/index.js';
import { silentLogger } from './silentLogger.js';

/** Agents besides root, so `GET /api/agents` lists a small society. */
export const AGENTS = 10;

/** A model that answers at once, so a submit's cost is troupe's, not a model's. */
const instantModel: ModelClient = {
  name: 'instant',
  scripted: true,
  async *chat(): AsyncGenerator<ChatDelta> {
    yield { type: 'text', text: 'ok' };
    yield { type: 'finish', reason: 'stop' };
  },
  embed: (texts) => Promise.resolve(texts.map(() => [0])),
};

async function troupe(durable: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  // Loaded here, not at the top: the bare side's process has no use for troupe.
  const [{ createRuntime }, { createHttpServer }] = await Promise.all([import('../../src/index.js'), import('../../src/server/index.js')]);
  const dir = durable ? mkdtempSync(join(tmpdir(), 'troupe-bench-http-')) : null;
  // At `troupe serve`'s default level (info: no line per request), and dropped: the figure is the API's, not the log's.
  // The mailbox and memory's backlog are raised so a flood of submits is measured, not refused: with
  // the defaults root's memory pushes back (429 memory_behind) once it is 150 Tasks behind.
  const rt = await createRuntime({
    model: instantModel,
    logger: silentLogger,
    dataDir: dir,
    retry: false,
    mailboxLimit: 1_000_000,
    memory: { limits: { maxBacklog: 1_000_000 } },
  });
  const role = await rt.createRole({ name: 'worker', prompt: 'Work.' });
  for (let i = 0; i < AGENTS; i++) await rt.spawn({ role: role.id });
  const server = createHttpServer(rt, { logger: silentLogger });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      await server.close();
      await rt.shutdown({ drainTimeoutMs: 0 });
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function bare(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  const agent = (id: string) => ({
    id,
    roleId: 'role-1',
    roleName: 'worker',
    status: 'active',
    parentAgentId: null,
    state: 'running.idle',
    queued: 0,
    createdAt: 0,
    terminatedAt: null,
  });
  const agents = { agents: Array.from({ length: AGENTS + 1 }, (_, i) => agent(`worker-${i}`)) };
  app.get('/api/agents', async () => agents);
  app.post('/api/submit', async (_, reply) => reply.status(201).send({ taskId: 'bare-task-id' }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

const side = process.argv[2];
const server = side === 'bare' ? await bare() : await troupe(side === 'troupe-durable');
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
// Each line on stdin asks for the CPU time this process has used so far, in µs (user + system).
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', end + 1)) {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuMicros: user + system })}\n`);
  }
});
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
