/**
 * Submits a burst of requirements to a runtime on a data dir and counts what memory did with
 * them: `npx tsx scripts/floodMemory.ts [submits] [sessions] [inFlight] [retry 1|0] [chunkDelayMs]`.
 * `inFlight` clients submit at once, each in a session of its own (or round robin over
 * `sessions`); with `retry` 1 a client refused for back-pressure waits 100 ms and tries again.
 * The model is the offline one, or with `chunkDelayMs` a local OpenAI-compatible server (the
 * offline playbook's replies) pausing that long before each streamed chunk: a slow real model,
 * whose compaction calls compete with the turns for the model-call limiter's slots. Prints how
 * many submits were accepted, how many were refused (by code), how many Tasks memory refused,
 * and how many accepted sessions have nothing in root's memory at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodeOf } from '../src/errors.js';
import { OfflineModel, OpenAIModel } from '../src/llm/index.js';
import { MemoryLogger } from '../src/logger.js';
import { createRuntime } from '../src/runtime/index.js';
import { startOpenAICompatibleServer } from '../src/testing.js';

const [submits = 5000, sessions = 0, inFlight = 200, retryFlag = 1, chunkDelayMs = 0] = process.argv.slice(2).map(Number);
const retry = retryFlag === 1;
const dir = await mkdtemp(join(tmpdir(), 'troupe-flood-'));
const logger = new MemoryLogger();
const server = chunkDelayMs > 0 ? await startOpenAICompatibleServer({ chunkDelayMs, keepRequests: 0 }) : undefined;
const model = server === undefined ? new OfflineModel() : new OpenAIModel({ apiKey: 'flood', baseURL: server.baseURL, model: 'slow' });
const rt = await createRuntime({ dataDir: dir, model, logger });
const started = performance.now();
const refusedBy = new Map<string, number>();
const accepted: { taskId: string; sessionId: string }[] = [];
let next = 0;
async function attempt(i: number): Promise<boolean> {
  const sessionId = sessions > 0 ? `s${i % sessions}` : undefined;
  try {
    const taskId = await rt.submit(`write a haiku about rain number ${i}`, sessionId === undefined ? {} : { sessionId });
    accepted.push({ taskId, sessionId: sessionId ?? taskId });
    await rt.waitForAnswer(taskId, { timeoutMs: 600_000 });
    return true;
  } catch (error) {
    const code = errorCodeOf(error);
    refusedBy.set(code, (refusedBy.get(code) ?? 0) + 1);
    // A client that backs off and tries again, as a refusal for back-pressure asks.
    if (!retry || (code !== 'memory_behind' && code !== 'mailbox_full')) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
    return false;
  }
}
async function worker(): Promise<void> {
  while (next < submits) {
    const i = next++;
    while (!(await attempt(i)));
  }
}
await Promise.all(Array.from({ length: inFlight }, () => worker()));
const seconds = (performance.now() - started) / 1000;
const view = await rt.memory('root');
const withNothing = new Set(accepted.map((task) => task.sessionId));
for (const tier of ['l1', 'l2', 'l3', 'l4'] as const) {
  for (let offset = 0; ; offset += 100) {
    const page = await rt.memory('root', { tier, offset, limit: 100 });
    for (const entry of page.entries) withNothing.delete(entry.sessionId ?? '');
    if (offset + 100 >= page.total) break;
  }
}

await rt.shutdown();
await server?.close();
// Read once every memory is closed, which logs what its last interval counted: a line counts one
// refused Task, or `more` of them when it sums up an interval.
const memoryRefusals = logger.entries.filter((entry) => /memory refused/.test(entry.message));
const refusedTasks = memoryRefusals.reduce((sum, entry) => sum + (typeof entry.fields['more'] === 'number' ? entry.fields['more'] : 1), 0);
await rm(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    submits,
    sessions,
    inFlight,
    chunkDelayMs,
    seconds: Math.round(seconds * 10) / 10,
    accepted: accepted.length,
    refusedSubmits: Object.fromEntries(refusedBy),
    memoryRefusedTasks: refusedTasks,
    memoryWarningLines: memoryRefusals.length,
    counts: view.counts,
    acceptedSessionsWithNothingInMemory: withNothing.size,
  }),
);
