import { isDeepStrictEqual } from 'node:util';
import OpenAI from 'openai';
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { type ChatRequest, type Runtime, type Task, createRuntime, defineTool, sequentialIds, taskText } from '../../src/index.js';
import { OpenAIModel, type ScriptReply } from '../../src/llm/index.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { jsonResult } from '../../src/tools/index.js';
import { type Round, type Timing, compare, median, settle } from './measure.js';
import { type Row, times } from './report.js';
import { silentLogger } from './silentLogger.js';

/** Tool steps per run; each run is STEPS model calls that call `echo`, then one that answers. */
const STEPS = 20;
const CALLS = STEPS + 1;
const GOAL = 1.2;
// A round is 21 local HTTP round trips (~25–70 ms here). Both sides keep getting faster for the
// first few hundred calls (JIT), so 10 warm-up rounds; 30 timed rounds a side take ~5 s in all.
const options = { warmup: 10, rounds: 30 };

const echoDescription = 'Returns its argument.';
const echoParameters = z.object({ n: z.number() });
/** The JSON Schema troupe derives from `echoParameters`, written out by hand for the baseline (checked equal below). */
const echoJsonSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

const echoTool = defineTool({
  name: 'echo',
  description: echoDescription,
  parameters: echoParameters,
  execute: ({ n }) => Promise.resolve(jsonResult({ n })),
});

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

/** What both sides' first request must share, taken from troupe's latest run. */
interface Opening {
  system: string;
  user: string;
  request: ChatRequest | undefined;
}

/**
 * Runs `body`, adding the CPU time the process spent meanwhile (ms) to `samples`: a cross-check
 * on wall time that other load on the machine disturbs less (it includes GC threads).
 */
async function cpuTimed<T>(samples: number[], body: () => Promise<T>): Promise<T> {
  const start = process.cpuUsage();
  const value = await body();
  const { user, system } = process.cpuUsage(start);
  samples.push((user + system) / 1000);
  return value;
}

/** A fresh worker per round in one long-lived runtime; timed from rt.send until the answer is back. */
function troupeRound(rt: Runtime, server: OpenAICompatibleServer, opening: Opening, cpu: number[]): Round<{ agentId: string; before: number; answer?: Task }> {
  return {
    setup: async () => {
      const agentId = rt.spawn({ role: 'worker' });
      await settle();
      return { agentId, before: server.chatRequests.length };
    },
    run: async (state) => {
      state.answer = await cpuTimed(cpu, () => rt.waitForAnswer(rt.send(state.agentId, 'loop'), { timeoutMs: 30_000 }));
    },
    teardown: async ({ agentId, before, answer }) => {
      if (answer?.status !== 'completed') throw new Error(`troupe loop ended ${String(answer?.status)}: ${JSON.stringify(answer?.error ?? null)}`);
      if (taskText(answer) !== 'done') throw new Error(`troupe loop answered ${JSON.stringify(taskText(answer))}, expected "done"`);
      const made = server.chatRequests.length - before;
      if (made !== CALLS) throw new Error(`troupe loop made ${made} model calls, expected ${CALLS}`);
      const first = server.chatRequests[before];
      const [system, user] = first?.messages ?? [];
      if (system?.role !== 'system' || user?.role !== 'user') throw new Error('troupe loop did not open with a system and a user message');
      Object.assign(opening, { system: system.content, user: user.content, request: first });
      await rt.terminate(agentId, { by: 'user' });
    },
  };
}

interface HandResult {
  calls: number;
  text: string;
}

/** The baseline: the smallest ReAct loop one would write with the `openai` package, streaming as troupe's client does. */
async function handLoop(client: OpenAI, system: string, user: string, tools: ChatCompletionFunctionTool[]): Promise<HandResult> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: system }, { role: 'user', content: user }];
  for (let calls = 1; ; calls++) {
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
    if (toolCalls.length === 0) return { calls, text };
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
}

function handRound(client: OpenAI, server: OpenAICompatibleServer, opening: Opening, cpu: number[]): Round<{ before: number; result?: HandResult }> {
  const tools: ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'echo', description: echoDescription, parameters: echoJsonSchema } }];
  return {
    setup: () => ({ before: server.chatRequests.length }),
    run: async (state) => {
      state.result = await cpuTimed(cpu, () => handLoop(client, opening.system, opening.user, tools));
    },
    teardown: ({ before, result }) => {
      const made = server.chatRequests.length - before;
      if (made !== CALLS || result?.calls !== CALLS) throw new Error(`hand-written loop made ${made} model calls, expected ${CALLS}`);
      if (result.text !== 'done') throw new Error(`hand-written loop answered ${JSON.stringify(result.text)}, expected "done"`);
      // Same opening request on both sides: same messages, same tool schema.
      if (!isDeepStrictEqual(server.chatRequests[before], opening.request)) throw new Error('hand-written loop sent a different first request than troupe');
    },
  };
}

/**
 * A 20-step ReAct loop through the whole runtime (agent actor, bus, conversation, retry layer,
 * OpenAIModel) against a minimal hand-written loop with the same `openai` client, both talking
 * to one local OpenAI-compatible server that answers at once.
 */
export async function reactLoop(): Promise<Row[]> {
  const server = await startOpenAICompatibleServer({ fallback: loopReply });
  const model = new OpenAIModel({ apiKey: 'bench', baseURL: server.baseURL, model: 'bench' });
  const rt = await createRuntime({ model, logger: silentLogger, ids: sequentialIds(), tools: [echoTool], maxSteps: 30 });
  // Only `echo` is offered, so both sides send the same tools array (the 7 meta-tools would add ~3.4 KB of schema to every request).
  rt.createRole({ name: 'worker', prompt: 'Call echo until told otherwise, then answer.', tools: { allow: ['echo'] } });
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.baseURL, maxRetries: 0 });
  const opening: Opening = { system: '', user: '', request: undefined };
  const troupeCpu: number[] = [];
  const rawCpu: number[] = [];
  let troupe: Timing;
  let raw: Timing;
  try {
    [troupe, raw] = await compare(troupeRound(rt, server, opening, troupeCpu), handRound(client, server, opening, rawCpu), options);
  } finally {
    await rt.shutdown({ drainTimeoutMs: 0 });
    await server.close();
  }

  const perStep = (timing: Timing): number => timing.medianMs / CALLS;
  const msPerStep = (timing: Timing): string => `${perStep(timing).toFixed(2)} ms/step`;
  const ratio = troupe.medianMs / raw.medianMs;
  const verdict = ratio <= GOAL ? `met in this run (${times(ratio)})` : `NOT met in this run (${times(ratio)})`;
  const overheadUs = (perStep(troupe) - perStep(raw)) * 1000;
  // CPU medians of the timed rounds (the warm-ups come first in each list).
  const cpuPerStep = (samples: number[]): number => median(samples.slice(options.warmup)) / CALLS;
  const cpuRatio = cpuPerStep(troupeCpu) / cpuPerStep(rawCpu);
  return [
    {
      benchmark: `ReAct loop: ${STEPS} echo tool steps + answer, local OpenAI-compatible server (per model call)`,
      troupe: msPerStep(troupe),
      raw: msPerStep(raw),
      ratio,
      notes: `median of ${options.rounds} interleaved rounds after ${options.warmup} warm-ups; ms per step = round ÷ ${CALLS} model calls (${STEPS} tool steps + the answer); troupe = rt.send → waitForAnswer through agent actor, bus, conversation, retry layer, OpenAIModel (streaming); raw = hand-written loop, same openai client, messages, tools and streaming; server in-process, zero latency; goal ≤ ${GOAL}×: ${verdict}`,
    },
    {
      benchmark: 'ReAct loop: troupe overhead per step',
      troupe: `${overheadUs >= 0 ? '+' : '−'}${Math.abs(overheadUs).toFixed(0)} µs/step`,
      raw: '—',
      ratio: Number.NaN,
      notes: `(troupe − raw) ÷ ${CALLS} model calls, from the medians above; rounds (ms) troupe ${troupe.minMs.toFixed(1)}–${troupe.maxMs.toFixed(1)}, raw ${raw.minMs.toFixed(1)}–${raw.maxMs.toFixed(1)}; process CPU time per step (median, less disturbed by other load): troupe ${cpuPerStep(troupeCpu).toFixed(2)} ms, raw ${cpuPerStep(rawCpu).toFixed(2)} ms, ${times(cpuRatio)}`,
    },
  ];
}
