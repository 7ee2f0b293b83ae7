// What a client of `troupe serve` sees while a `remember` flood fills root's L4: a runtime on a
// data dir, served over HTTP on loopback, takes Tasks in `sessions` sessions whose model answers
// each with `perTask` `remember` calls (facts as scripts/l4Flood.ts makes them, a third of them
// rewordings), `inFlight` Tasks at a time, until `facts` facts were asked for (a Task's turn
// must fit a conversation's 50 messages: `perTask` up to 24). Before the clock starts, one Task
// of the same kind warms the process up (lazily loaded modules, hnswlib). Meanwhile a child
// process, so that its timers are not held up by the server's event loop, polls GET /health,
// GET /api/agents/root/memory (the counts) and GET /api/agents/root/memory?tier=l4&limit=20 (a
// page of L4) every 100 ms each, one request at a time per route, and reports each route's
// latency (max, p99, p50). Also printed: the most facts root's L4 held, Tasks refused and how,
// and the longest the server's event loop was held (monitorEventLoopDelay, 10 ms resolution).
//
//   node --import tsx scripts/l4HttpFlood.ts [facts=12000] [sessions=25] [perTask=20] [inFlight=25]

import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { errorCodeOf } from '../src/errors.js';
import { type ChatDelta, type ChatRequest, type ModelClient, OfflineModel } from '../src/llm/index.js';
import { MemoryLogger } from '../src/logger.js';
import { createRuntime } from '../src/runtime/index.js';
import { createHttpServer } from '../src/server/index.js';
import { readPrompt } from '../src/task/index.js';
import { floodFact } from '../test/support/clusteredFacts.js';

const routes = ['/health', '/api/agents/root/memory', '/api/agents/root/memory?tier=l4&limit=20'];
const everyMs = 100;

interface Latencies {
  readonly route: string;
  readonly ms: number[];
  readonly failed: number;
}

/** The child: polls each route until its parent says stop, then sends the latencies. */
async function poll(url: string): Promise<void> {
  let stopped = false;
  process.on('message', () => (stopped = true));
  process.send?.('polling');
  const results = await Promise.all(
    routes.map(async (route): Promise<Latencies> => {
      const ms: number[] = [];
      let failed = 0;
      while (!stopped) {
        const started = performance.now();
        try {
          const reply = await fetch(url + route);
          await reply.arrayBuffer();
          if (!reply.ok) failed++;
        } catch {
          failed++;
        }
        const took = performance.now() - started;
        ms.push(took);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - took)));
      }
      return { route, ms, failed };
    }),
  );
  process.send?.(results, () => process.exit(0));
}

/** A model that answers a Task `remember facts <from>+<count>` with that many `remember` calls, then "noted"; anything else as the offline model does. */
class RememberingModel implements ModelClient {
  readonly name = 'remembering';
  readonly scripted = true;
  readonly #offline = new OfflineModel();
  readonly #sessions: number;

  constructor(sessions: number) {
    this.#sessions = sessions;
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    return this.#offline.embed(texts);
  }

  async *chat(request: ChatRequest): AsyncGenerator<ChatDelta> {
    const asked = [...request.messages].reverse().find((message) => message.role === 'user' && readPrompt(message.content) !== null);
    const range = /^remember facts (\d+)\+(\d+)$/.exec(asked?.role === 'user' ? (readPrompt(asked.content)?.text ?? '') : '');
    if (range === null) {
      yield* this.#offline.chat(request);
      return;
    }
    if (request.messages.at(-1)?.role === 'tool') {
      yield { type: 'text', text: 'noted' };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    const [from, count] = [Number(range[1]), Number(range[2])];
    for (let index = 0; index < count; index++) {
      const fact = floodFact(from + index, this.#sessions);
      const args = JSON.stringify({ text: fact.text, scope: 'session', importance: fact.importance });
      yield { type: 'tool_call', index, id: `remember_${from + index}`, name: 'remember', arguments: args };
    }
    yield { type: 'finish', reason: 'tool_calls' };
  }
}

async function flood(): Promise<void> {
  const [facts, sessions, perTask, inFlight] = [12_000, 25, 20, 25].map((fallback, i) => Number(process.argv[i + 2] ?? fallback)) as [
    number,
    number,
    number,
    number,
  ];
  const dir = await mkdtemp(join(tmpdir(), 'troupe-l4-http-'));
  const logger = new MemoryLogger();
  const rt = await createRuntime({ dataDir: dir, model: new RememberingModel(sessions), logger });
  const server = createHttpServer(rt, { logger });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  // Warm-up, not measured: the modules a first Task loads (hnswlib, tsx compiling what is imported late).
  await rt.waitForAnswer(await rt.submit(`remember facts ${facts}+1`, { sessionId: 'warm-up' }), { timeoutMs: 600_000 });
  const poller = fork(fileURLToPath(import.meta.url), ['--poll', url], { execArgv: ['--import', 'tsx'] });
  await new Promise((resolve) => poller.once('message', resolve));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  const refusedBy = new Map<string, number>();
  let most = 0;
  const watch = setInterval(() => {
    void rt.memory('root').then((view) => (most = Math.max(most, view.counts.l4)));
  }, 250);
  const started = performance.now();
  let next = 0;
  async function client(): Promise<void> {
    while (next < facts) {
      const from = next;
      next += perTask;
      const text = `remember facts ${from}+${Math.min(perTask, facts - from)}`;
      for (;;) {
        try {
          await rt.waitForAnswer(await rt.submit(text, { sessionId: `s${(from / perTask) % sessions}` }), { timeoutMs: 600_000 });
          break;
        } catch (error) {
          const code = errorCodeOf(error);
          refusedBy.set(code, (refusedBy.get(code) ?? 0) + 1);
          if (code !== 'memory_behind' && code !== 'mailbox_full') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, client));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(watch);
  delay.disable();

  const latencies = await new Promise<Latencies[]>((resolve) => {
    poller.once('message', (message) => resolve(message as Latencies[]));
    poller.send('stop');
  });
  const view = await rt.memory('root');
  const warnings = logger.entries.filter((entry) => entry.level === 'warn' || entry.level === 'error').length;
  console.log(`${facts} facts asked for in Tasks of ${perTask} remember calls, ${sessions} sessions, ${inFlight} Tasks at once: ${seconds.toFixed(1)} s`);
  console.log(
    `root's L4: most ${Math.max(most, view.counts.l4)} (sampled every 250 ms), ${view.counts.l4} at the end; Tasks refused: ${JSON.stringify(Object.fromEntries(refusedBy))}; warnings and errors logged: ${warnings}`,
  );
  console.log(
    `server event loop held: longest ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, mean ${(delay.mean / 1e6).toFixed(1)} ms`,
  );
  for (const { route, ms, failed } of latencies) {
    const sorted = [...ms].sort((a, b) => a - b);
    const at = (p: number): string => (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(0);
    console.log(`GET ${route}: ${ms.length} requests, ${failed} failed; latency max ${at(100)} ms, p99 ${at(99)} ms, p50 ${at(50)} ms`);
  }
  await server.close();
  await rt.shutdown({ drainTimeoutMs: 0 });
  await rm(dir, { recursive: true, force: true });
}

if (process.argv[2] === '--poll') await poll(process.argv[3] ?? '');
else await flood();
