import { z } from 'zod';
import { type ChatRequest, type Runtime, createRuntime, defineTool, sequentialIds, taskText } from '../../src/index.js';
import type { ChatDelta, ChatMessage, ModelClient } from '../../src/llm/index.js';
import { jsonResult } from '../../src/tools/index.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { type Row, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

// The ReAct loop's own cost, with the model's HTTP round trip taken out: a model in the same
// process that answers at once (20 `echo` calls, then "done"), driven by troupe and by a
// hand-written loop. What is left is troupe's machinery per step: actor, bus, conversation,
// retry layer, tool runner, observation Tasks.

const STEPS = 20;
const CALLS = STEPS + 1;
const options = sized({ blocks: 3, warmup: 150, rounds: 100 }, { blocks: 1, warmup: 0, rounds: 1 });

/** Replies like the local server's script: `echo` until STEPS results follow the last user message. */
class InstantLoopModel implements ModelClient {
  readonly name = 'instant-loop';
  readonly scripted = true;
  calls = 0;

  async *chat(request: ChatRequest): AsyncGenerator<ChatDelta> {
    this.calls++;
    const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
    const results = request.messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
    if (results < STEPS) yield { type: 'tool_call', index: 0, id: `call_${this.calls}`, name: 'echo', arguments: JSON.stringify({ n: results }) };
    else yield { type: 'text', text: 'done' };
    yield { type: 'finish', reason: results < STEPS ? 'tool_calls' : 'stop', usage: { promptTokens: 10, completionTokens: 2 } };
  }

  embed(): Promise<number[][]> {
    return Promise.resolve([]);
  }
}

const echo = defineTool({
  name: 'echo',
  description: 'Returns its argument.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => Promise.resolve(jsonResult({ n })),
});

/** The same loop by hand: stream, gather tool calls, run echo, append, repeat. */
async function handLoop(model: ModelClient): Promise<string> {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'Call echo until told otherwise, then answer.' },
    { role: 'user', content: 'loop' },
  ];
  for (let call = 1; call <= CALLS; call++) {
    let text = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const delta of model.chat({ messages, tools: [] })) {
      if (delta.type === 'text') text += delta.text;
      else if (delta.type === 'tool_call') calls[delta.index] = { id: delta.id ?? '', name: delta.name ?? '', arguments: delta.arguments ?? '' };
    }
    if (calls.length === 0) return text;
    messages.push({ role: 'assistant', content: text, toolCalls: calls });
    for (const call of calls) {
      const { n } = JSON.parse(call.arguments) as { n: number };
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: JSON.stringify({ n }) });
    }
  }
  throw new Error('hand-written loop got no answer');
}

async function troupeRound(rt: Runtime): Promise<{ ms: number; answer: string }> {
  const agentId = await rt.spawn({ role: 'worker' });
  const start = process.hrtime.bigint();
  const answer = await rt.waitForAnswer(await rt.send(agentId, 'loop'), { timeoutMs: 30_000 });
  const ms = elapsedMs(start);
  await rt.terminate(agentId, { by: 'user' });
  return { ms, answer: taskText(answer) };
}

export async function reactMachinery(): Promise<Row[]> {
  const model = new InstantLoopModel();
  const rt = await createRuntime({ model, logger: silentLogger, ids: sequentialIds(), tools: [echo], maxSteps: 30 });
  await rt.createRole({ name: 'worker', prompt: 'Call echo until told otherwise, then answer.', tools: { allow: ['echo'] } });
  const troupe: number[] = [];
  const hand: number[] = [];
  try {
    for (let block = 0; block < options.blocks; block++) {
      for (let i = 0; i < options.warmup + options.rounds; i++) {
        const before = model.calls;
        const { ms, answer } = await troupeRound(rt);
        if (answer !== 'done' || model.calls - before !== CALLS) throw new Error(`troupe round made ${model.calls - before} calls and answered ${answer}`);
        if (i >= options.warmup) troupe.push(ms / CALLS);
      }
      for (let i = 0; i < options.warmup + options.rounds; i++) {
        const start = process.hrtime.bigint();
        const answer = await handLoop(model);
        if (answer !== 'done') throw new Error(`hand loop answered ${answer}`);
        if (i >= options.warmup) hand.push(elapsedMs(start) / CALLS);
      }
    }
  } finally {
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
  const [t, h] = [median(troupe), median(hand)];
  return [
    {
      benchmark: 'ReAct loop machinery: 20 echo steps + answer, instant in-process model (per model call)',
      troupe: duration(t),
      raw: duration(h),
      ratio: t / h,
      notes: `no HTTP: the model answers at once in the same process, so this is troupe's own cost per step (actor, bus, conversation, retry layer, tool runner, observation Tasks) against a hand-written loop over the same model; overhead ${duration(t - h)}/step; one process, troupe and hand blocks alternated (${options.blocks} × ${options.warmup} warm-up + ${options.rounds} measured rounds a side), medians`,
    },
  ];
}
