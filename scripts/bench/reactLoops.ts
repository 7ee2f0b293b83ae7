/**
 * The two loops of the ReAct-loop benchmark and the server script they run against, shared by
 * the per-process worker (`reactLoopWorker.ts`) and the same-process A/B (`reactAB.ts`).
 */
import { type Database, open } from 'lmdb';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { type ChatRequest, taskText } from '../../src/index.js';
import type * as troupeEntry from '../../src/index.js';
import type { ScriptReply } from '../../src/llm/index.js';
import { CompletionChunks } from '../../src/llm/completionChunks.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { settle } from './measure.js';
import { CALLS, type Opening, STEPS } from './reactLoop.js';
import { silentLogger } from './silentLogger.js';

/** What the troupe loop takes from a build of troupe: this one, or another checkout's for an A/B. */
export type TroupeBuild = Pick<typeof troupeEntry, 'createRuntime' | 'defineTool' | 'sequentialIds' | 'OpenAIModel'>;

export const echoDescription = 'Returns its argument.';
export const echoParameters = z.object({ n: z.number() });

/**
 * The loop's tool, as its runtime (or the node serving it) runs it: left to MCP's defaults (it
 * changes the world, so with a data dir each step waits for the disk), or declared read-only.
 */
export function echoTool(defineTool: TroupeBuild['defineTool'], readOnly = false): troupeEntry.Tool {
  return defineTool({
    name: 'echo',
    description: echoDescription,
    parameters: echoParameters,
    ...(readOnly ? { annotations: { readOnly: true } } : {}),
    // The ToolResult jsonResult would make, written out: a baseline build need not export jsonResult.
    execute: ({ n }) => Promise.resolve({ content: JSON.stringify({ n }), metadata: { n } }),
  });
}

/** Where the troupe loop's runtime talks and where its `echo` runs: by default its own bus and `echoTool`. */
export interface LoopPlacement {
  readonly bus?: troupeEntry.EventBus;
  readonly tool?: troupeEntry.Tool;
}
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

/**
 * The local server both loops talk to, answering with `loopReply` (with `chunkDelayMs` between
 * streamed chunks, a model that takes time to answer). It keeps no request bodies (a
 * remote model server holds nothing in this process's heap, and every request kept here is
 * memory each collection would walk again) except the very first, which `firstRequest` gives
 * back: troupe's opening, handed to the hand-written loop and compared across processes.
 */
export async function startLoopServer(chunkDelayMs = 0): Promise<{ server: OpenAICompatibleServer; firstRequest: () => ChatRequest | undefined }> {
  let first: ChatRequest | undefined;
  const server = await startOpenAICompatibleServer({
    chunkDelayMs,
    fallback: (request) => {
      first ??= request;
      return loopReply(request);
    },
    keepRequests: 1,
  });
  return { server, firstRequest: () => first };
}

/** One round of a side: `setup` and `teardown` untimed, `run` timed; `run` gives the answer text. */
export interface Loop {
  setup: () => Promise<void>;
  run: () => Promise<string>;
  teardown: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Where a round's agent comes from: `ready`, spawned before the round and terminated after it
 * (untimed), the loop alone timed; `fresh`, spawned, asked and terminated inside the timed round,
 * as an application that starts an agent per conversation does.
 */
export type AgentPerRound = 'ready' | 'fresh';

/**
 * A fresh worker agent per round in one long-lived runtime; timed from rt.send until the answer is
 * back, or (`fresh`) from rt.spawn until rt.terminate resolves. With `dataDir` the runtime keeps
 * its organisation in the LMDB store there (every Task, step and waiting record written durably);
 * without, it is memory-only.
 */
export async function troupeLoop(
  server: { readonly baseURL: string },
  { createRuntime, defineTool, sequentialIds, OpenAIModel }: TroupeBuild,
  dataDir: string | null = null,
  placement: LoopPlacement = {},
  agentPerRound: AgentPerRound = 'ready',
): Promise<Loop> {
  const model = new OpenAIModel({ apiKey: 'bench', baseURL: server.baseURL, model: 'bench' });
  const tools = [placement.tool ?? echoTool(defineTool)];
  const bus = placement.bus === undefined ? {} : { bus: placement.bus };
  const rt = await createRuntime({ model, logger: silentLogger, ids: sequentialIds(), tools, maxSteps: 30, dataDir, ...bus });
  // Only `echo` is offered, so both sides send the same tools array (the 7 meta-tools would add ~3.4 KB of schema to every request).
  await rt.createRole({ name: 'worker', prompt: 'Call echo until told otherwise, then answer.', tools: { allow: ['echo'] } });
  const ask = async (agentId: string): Promise<string> => {
    const answer = await rt.waitForAnswer(await rt.send(agentId, 'loop'), { timeoutMs: 30_000 });
    if (answer.status !== 'completed') throw new Error(`troupe loop ended ${answer.status}: ${JSON.stringify(answer.error ?? null)}`);
    return taskText(answer);
  };
  const spawn = (): Promise<string> => rt.spawn({ role: 'worker' });
  const terminate = (agentId: string): Promise<void> => rt.terminate(agentId, { by: 'user' });
  let agentId = '';
  return {
    setup: async () => {
      if (agentPerRound === 'fresh') return;
      agentId = await spawn();
      await settle();
    },
    run: async () => {
      if (agentPerRound === 'ready') return ask(agentId);
      const fresh = await spawn();
      const text = await ask(fresh);
      await terminate(fresh);
      return text;
    },
    teardown: () => (agentPerRound === 'ready' ? terminate(agentId) : Promise.resolve()),
    close: async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    },
  };
}

/**
 * How the hand-written loop reads a streamed reply: `sdk` iterates the SDK's own Stream, as the
 * smallest loop one would write does (the baseline of the goal); `sse` reads the body with the
 * reader troupe's OpenAIModel uses, so troupe against it is the runtime's own cost alone.
 */
export type HandReader = 'sdk' | 'sse';

/**
 * Where the hand-written loop keeps its steps, if anywhere: the raw-library baseline of the
 * data-dir row. An LMDB environment opened with lmdb's defaults, one database, one put a step.
 */
export interface HandStore {
  readonly db: Database<unknown, string>;
  close(): Promise<void>;
}

/** Opens a HandStore in `dir` (an existing, empty directory). */
export function openHandStore(dir: string): HandStore {
  const root = open<unknown, string>({ path: dir });
  return { db: root, close: () => root.close() };
}

/**
 * The baseline: the smallest ReAct loop one would write with the `openai` package, streaming as
 * troupe's client does (body read as `reader` says). With a `store` it is the smallest durable
 * one, keeping troupe's guarantees with raw lmdb puts: the opening is on disk before the first
 * call, each step's reply and tool results are put once they are in and flushed (fsynced)
 * before the next step's tool runs, overlapping the next model call, and the answer is on disk
 * before it is returned.
 */
export function handLoop(server: { readonly baseURL: string }, { system, user }: Opening, reader: HandReader = 'sdk', store?: HandStore): Loop {
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.baseURL, maxRetries: 0 });
  const tools: ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'echo', description: echoDescription, parameters: echoJsonSchema } }];
  let round = 0;
  // Resolves once `value` is on disk: a put's promise resolves at the commit, the database's
  // `flushed` (a thenable read when `then` is called) at the fsync of the transaction it joined.
  // Without a store the loop awaits nothing more.
  const durable =
    store === undefined
      ? undefined
      : async (key: string, value: unknown): Promise<void> => {
          const committed = store.db.put(key, value);
          const flushed = new Promise((resolve, reject) => void store.db.flushed.then(resolve, reject));
          await committed;
          await flushed;
        };
  return {
    setup: () => Promise.resolve(),
    run: async () => {
      const task = `task-${++round}`;
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ];
      if (durable !== undefined) await durable(`${task}/0`, messages);
      let lastStep: Promise<void> | undefined;
      for (let calls = 1; calls <= CALLS; calls++) {
        let text = '';
        const toolCalls: { id: string; name: string; arguments: string }[] = [];
        const take = (chunk: ChatCompletionChunk): void => {
          for (const choice of chunk.choices) {
            if (typeof choice.delta.content === 'string') text += choice.delta.content;
            for (const fragment of choice.delta.tool_calls ?? []) {
              const call = (toolCalls[fragment.index] ??= { id: '', name: '', arguments: '' });
              if (fragment.id !== undefined) call.id = fragment.id;
              call.name += fragment.function?.name ?? '';
              call.arguments += fragment.function?.arguments ?? '';
            }
          }
        };
        const request = client.chat.completions.create({ model: 'bench', messages, tools, stream: true, stream_options: { include_usage: true } });
        if (reader === 'sdk') {
          for await (const chunk of await request) take(chunk);
        } else {
          const chunks = new CompletionChunks(await request.asResponse());
          for (let batch = await chunks.next(); batch !== null; batch = await chunks.next()) batch.forEach(take);
        }
        // The last step on disk before this step's tool runs or its answer leaves.
        if (lastStep !== undefined) await lastStep;
        if (toolCalls.length === 0) {
          if (durable !== undefined) await durable(`${task}/answer`, text);
          return text;
        }
        const step: ChatCompletionMessageParam[] = [
          {
            role: 'assistant',
            content: text === '' ? null : text,
            tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
          },
        ];
        for (const call of toolCalls) {
          const args = JSON.parse(call.arguments) as { n: number };
          step.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ n: args.n }) });
        }
        messages.push(...step);
        lastStep = durable?.(`${task}/${calls}`, step);
      }
      throw new Error(`hand-written loop got no answer after ${CALLS} model calls`);
    },
    teardown: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
