import { afterEach, expect } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import { type Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel, sequentialIds } from '../../src/testing.js';

// A runtime on the scripted model, and turns of its agents scripted as tool calls: how the graph
// tools' tests drive them.

export type Result = Record<string, unknown>;
type Call = { name: string; arguments: unknown };
/** A step's tool calls, or a function making them from the results of the steps before. */
type Step = Call[] | ((earlier: readonly Result[][]) => Call[]);

/**
 * Call once in a test file: makes runtimes on a scripted model with sequential ids, each shut down
 * after its test (unless the test did). Their graphs hold only what the tools put there: the
 * recording of the society's own work is off (`workNodes: 0`; test/runtime/workGraph.test.ts has it on).
 */
export function graphSocieties(): (options?: RuntimeOptions) => Promise<{ rt: Runtime; model: ScriptedModel }> {
  const running: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((rt) => rt.shutdown({ drainTimeoutMs: 0 })));
  });
  return async (options = {}) => {
    const model = new ScriptedModel([]);
    const rt = await createRuntime({ model, ids: sequentialIds(), logger: new MemoryLogger(), ...options, memory: { workNodes: 0, ...options.memory } });
    running.push(rt);
    return { rt, model };
  };
}

/** The results of the tool calls of the model's last reply, parsed, in the order it made them. */
function toolResults(request: ChatRequest): Result[] {
  const reply = request.messages.findLast((message) => message.role === 'assistant');
  const calls = reply?.role === 'assistant' ? reply.toolCalls : [];
  return calls.map((call) => {
    const result = request.messages.find((message) => message.role === 'tool' && message.toolCallId === call.id);
    return JSON.parse(result?.content ?? '{}') as Result;
  });
}

/** Scripts one turn of the agent the Task goes to: each step's tool calls, then an answer; resolves with each step's results. */
export async function turn(rt: Runtime, model: ScriptedModel, steps: readonly Step[], to: { sessionId?: string; agentId?: string } = {}) {
  const results: Result[][] = [];
  model.push(
    ...steps.map((step, i) => (request: ChatRequest) => {
      if (i > 0) results.push(toolResults(request));
      return { toolCalls: typeof step === 'function' ? step(results) : step };
    }),
    (request: ChatRequest) => {
      results.push(toolResults(request));
      return { text: 'done' };
    },
  );
  const session = to.sessionId === undefined ? {} : { sessionId: to.sessionId };
  const taskId = to.agentId === undefined ? await rt.submit('keep a graph', session) : await rt.send(to.agentId, 'keep a graph', session);
  const answer = await rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
  expect(answer.status).toBe('completed');
  return { results, sessionId: answer.sessionId };
}

/** The id of the node a tool made (`{ event: … }` or `{ note: … }`). */
export function idOf(result: Result | undefined): string {
  const node = (result?.['event'] ?? result?.['note']) as { id?: unknown } | undefined;
  if (typeof node?.id !== 'string') throw new Error(`no node in ${JSON.stringify(result)}`);
  return node.id;
}

export const call = (name: string, args: Record<string, unknown>): Call => ({ name, arguments: args });
