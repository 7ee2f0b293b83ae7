/**
 * One side of the HTTP benchmark in a process of its own, so the load generator does not share
 * its event loop: `troupe` (the HTTP API on a memory-only runtime), `troupe-memory-off` (the same
 * with no agent's memory fed: see busWithoutMemory), `troupe-durable` (an org store in a temp
 * dir: each submit waits for its fsync'd write) or `bare` (Fastify answering constants of the
 * same shape). Prints `{"url": …}` on stdout once listening, answers each `cpu` line on stdin with
 * `{"cpuMicros": …}` and each `idle` line with the same once the process is idle again (see
 * untilIdle), and exits when its stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { Subscription } from 'rxjs';
import { type ChatDelta, EventBus, type ModelClient } from '../../src/index.js';
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

/**
 * A bus on which the runtime's memory subscriber (the one that feeds every agent's memory) gets
 * nothing: agents keep no Task, so nothing is compacted, promoted or stored as a fact, and a
 * turn's context recalls from an empty memory. The rest of the runtime is the same, so the
 * difference from the `troupe` side is what memory costs a submit. Throws when the runtime made
 * no such subscription, so a renamed subscriber cannot leave memory on unnoticed.
 */
function busWithoutMemory(): { bus: EventBus; checkDropped: () => void } {
  let dropped = false;
  const bus = new (class extends EventBus {
    override subscribe(...args: Parameters<EventBus['subscribe']>): Subscription {
      if (args[2] !== 'memory') return super.subscribe(...args);
      dropped = true;
      return Subscription.EMPTY;
    }
  })();
  const checkDropped = (): void => {
    if (!dropped) throw new Error("the runtime subscribed no 'memory' feed to the bus: the memory-off side would measure memory on");
  };
  return { bus, checkDropped };
}

async function troupe(side: 'troupe' | 'troupe-durable' | 'troupe-memory-off'): Promise<{ url: string; close: () => Promise<void> }> {
  // Loaded here, not at the top: the bare side's process has no use for troupe.
  const [{ createRuntime }, { createHttpServer }] = await Promise.all([import('../../src/index.js'), import('../../src/server/index.js')]);
  const dir = side === 'troupe-durable' ? mkdtempSync(join(tmpdir(), 'troupe-bench-http-')) : null;
  const memoryOff = side === 'troupe-memory-off' ? busWithoutMemory() : undefined;
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
    ...(memoryOff === undefined ? {} : { bus: memoryOff.bus }),
  });
  memoryOff?.checkDropped();
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

/** CPU time this process has used so far, in µs (user + system). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Resolves once the process is idle again: a tenth of a second in which it used under 5 ms of
 * CPU, so the work a flood left behind (memory compaction, vectors waiting for the index) is
 * done; at most 60 s. Says how long that took.
 */
async function untilIdle(): Promise<{ busyMs: number }> {
  const start = performance.now();
  for (let before = cpuMicros(); performance.now() - start < 60_000;) {
    await sleep(100);
    const now = cpuMicros();
    if (now - before < 5_000) break;
    before = now;
  }
  return { busyMs: performance.now() - start };
}

const side = process.argv[2];
const server = side === 'bare' ? await bare() : await troupe(side === 'troupe-durable' || side === 'troupe-memory-off' ? side : 'troupe');
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
// `cpu` asks for the CPU time used so far; `idle` for the same once the process is idle again, with how long that took.
let commands = Promise.resolve();
let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    commands = commands.then(async () => {
      const idle = line === 'idle' ? await untilIdle() : {};
      process.stdout.write(`${JSON.stringify({ cpuMicros: cpuMicros(), ...idle })}\n`);
    });
  }
});
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
