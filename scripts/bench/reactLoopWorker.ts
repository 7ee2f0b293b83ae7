/**
 * One side of the ReAct-loop benchmark, alone in its own process so it has the JIT, heap and GC
 * to itself, as in an application that runs one loop or the other, never both:
 *
 *   node --import tsx scripts/bench/reactLoopWorker.ts troupe <rounds> <warmup>
 *   node --import tsx scripts/bench/reactLoopWorker.ts hand <rounds> <warmup> '{"system":"…","user":"…"}'
 *
 * Starts its own local OpenAI-compatible server, runs the warm-up rounds, then the measured ones,
 * and prints one JSON `WorkerReport` on stdout (nothing else goes there). The hand-written loop
 * is given troupe's opening system and user messages, so both sides send the same first request.
 */
import OpenAI from 'openai';
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { type ChatRequest, createRuntime, defineTool, sequentialIds, taskText } from '../../src/index.js';
import { OpenAIModel, type ScriptReply } from '../../src/llm/index.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { jsonResult } from '../../src/tools/index.js';
import { collect, elapsedMs, settle } from './measure.js';
import { CALLS, type Opening, STEPS, type WorkerReport } from './reactLoop.js';
import { silentLogger } from './silentLogger.js';

const echoDescription = 'Returns its argument.';
const echoParameters = z.object({ n: z.number() });
/** The JSON Schema troupe derives from `echoParameters`, written out by hand for the baseline (checked equal by the parent). */
const echoJsonSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

/**
 * The server's script for both sides: while fewer than STEPS tool results follow the last user
 * message, one `echo` call whose argument is that count (distinct each step, so troupe's repeat
 * guard never fires); then the answer.
 */
function loopReply(request: ChatRequest): ScriptReply {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const results = request.messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
  return results < STEPS ? { toolCalls: [{ name: 'echo', arguments: { n: results } }] } : { text: 'done' };
}

/** One round of a side: `setup` and `teardown` untimed, `run` timed; `run` gives the answer text. */
interface Loop {
  setup: () => Promise<void>;
  run: () => Promise<string>;
  teardown: () => Promise<void>;
  close: () => Promise<void>;
}

/** A fresh worker agent per round in one long-lived runtime; timed from rt.send until the answer is back. */
async function troupeLoop(server: OpenAICompatibleServer): Promise<Loop> {
  const model = new OpenAIModel({ apiKey: 'bench', baseURL: server.baseURL, model: 'bench' });
  const echoTool = defineTool({
    name: 'echo',
    description: echoDescription,
    parameters: echoParameters,
    execute: ({ n }) => Promise.resolve(jsonResult({ n })),
  });
  const rt = await createRuntime({ model, logger: silentLogger, ids: sequentialIds(), tools: [echoTool], maxSteps: 30 });
  // Only `echo` is offered, so both sides send the same tools array (the 7 meta-tools would add ~3.4 KB of schema to every request).
  await rt.createRole({ name: 'worker', prompt: 'Call echo until told otherwise, then answer.', tools: { allow: ['echo'] } });
  let agentId = '';
  return {
    setup: async () => {
      agentId = await rt.spawn({ role: 'worker' });
      await settle();
    },
    run: async () => {
      const answer = await rt.waitForAnswer(await rt.send(agentId, 'loop'), { timeoutMs: 30_000 });
      if (answer.status !== 'completed') throw new Error(`troupe loop ended ${answer.status}: ${JSON.stringify(answer.error ?? null)}`);
      return taskText(answer);
    },
    teardown: () => rt.terminate(agentId, { by: 'user' }),
    close: async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    },
  };
}

/** The baseline: the smallest ReAct loop one would write with the `openai` package, streaming as troupe's client does. */
function handLoop(server: OpenAICompatibleServer, { system, user }: Opening): Loop {
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.baseURL, maxRetries: 0 });
  const tools: ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'echo', description: echoDescription, parameters: echoJsonSchema } }];
  return {
    setup: () => Promise.resolve(),
    run: async () => {
      const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: system }, { role: 'user', content: user }];
      for (let calls = 1; calls <= CALLS; calls++) {
        const stream = await client.chat.completions.create({ model: 'bench', messages, tools, stream: true, stream_options: { include_usage: true } });
        let text = '';
        const toolCalls: { id: string; name: string; arguments: string }[] = [];
        for await (const chunk of stream) {
          for (const choice of chunk.choices) {
            if (typeof choice.delta.content === 'string') text += choice.delta.content;
            for (const fragment of choice.delta.tool_calls ?? []) {
              const call = (toolCalls[fragment.index] ??= { id: '', name: '', arguments: '' });
              if (fragment.id !== undefined) call.id = fragment.id;
              call.name += fragment.function?.name ?? '';
              call.arguments += fragment.function?.arguments ?? '';
            }
          }
        }
        if (toolCalls.length === 0) return text;
        messages.push({
          role: 'assistant',
          content: text === '' ? null : text,
          tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        });
        for (const call of toolCalls) {
          const args = JSON.parse(call.arguments) as { n: number };
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ n: args.n }) });
        }
      }
      throw new Error(`hand-written loop got no answer after ${CALLS} model calls`);
    },
    teardown: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

type Args = { side: 'troupe'; rounds: number; warmup: number } | { side: 'hand'; rounds: number; warmup: number; opening: Opening };

function parseArgs([side, rounds, warmup, opening]: readonly string[]): Args {
  const count = (text: string | undefined, least: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < least) throw new Error(`reactLoopWorker: expected an integer ≥ ${least}, got ${String(text)}`);
    return value;
  };
  const counts = { rounds: count(rounds, 1), warmup: count(warmup, 0) };
  if (side === 'troupe') return { side, ...counts };
  if (side === 'hand' && opening !== undefined) return { side, ...counts, opening: JSON.parse(opening) as Opening };
  throw new Error('usage: reactLoopWorker.ts troupe <rounds> <warmup> | hand <rounds> <warmup> \'{"system": …, "user": …}\'');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { side, rounds, warmup } = args;
  // The server keeps no more than the latest request: a remote model server holds nothing in
  // this process's heap, and every request kept here is memory each collection would walk again,
  // on both sides. Only round 1's opening request is kept, for the parent to compare (troupe's
  // names its agent and task, so later rounds differ in those ids).
  let firstRequest: ChatRequest | undefined;
  const server = await startOpenAICompatibleServer({
    fallback: (request) => {
      firstRequest ??= request;
      return loopReply(request);
    },
    keepRequests: 1,
  });
  const msPerStepSamples: number[] = [];
  const cpuPerStepSamples: number[] = [];
  try {
    const loop = args.side === 'troupe' ? await troupeLoop(server) : handLoop(server, args.opening);
    try {
      for (let i = 0; i < warmup + rounds; i++) {
        // One full collection before the measured rounds, so they start from a clean heap.
        if (i === warmup) collect();
        await loop.setup();
        const before = server.chatCalls;
        const cpuStart = process.cpuUsage();
        const start = process.hrtime.bigint();
        const answer = await loop.run();
        const wallMs = elapsedMs(start);
        const cpu = process.cpuUsage(cpuStart);
        await loop.teardown();
        // Checked untimed, every round: 21 chat requests and the answer.
        const made = server.chatCalls - before;
        if (made !== CALLS) throw new Error(`${side} loop made ${made} model calls in round ${i + 1}, expected ${CALLS}`);
        if (answer !== 'done') throw new Error(`${side} loop answered ${JSON.stringify(answer)} in round ${i + 1}, expected "done"`);
        if (i < warmup) continue;
        msPerStepSamples.push(wallMs / CALLS);
        // Process CPU time (ms), GC threads and the in-process server included.
        cpuPerStepSamples.push((cpu.user + cpu.system) / 1000 / CALLS);
      }
    } finally {
      await loop.close();
    }
  } finally {
    await server.close();
  }
  if (firstRequest === undefined) throw new Error(`${side} loop made no requests`);
  const report: WorkerReport = { msPerStepSamples, cpuPerStepSamples, calls: server.chatCalls, firstRequest };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
