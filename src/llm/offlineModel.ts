import { defaultHashedNgramDimension, hashedNgramVector } from '../hashedNgramVector.js';
import { sleep, systemClock } from '../clock.js';
import { readPrompt } from '../task/index.js';
import type { ChatDelta, ChatMessage, ChatRequest } from './messages.js';
import type { ChatOptions, ModelClient } from './modelClient.js';
import { type ScriptReply, streamReply } from './scriptedReply.js';

const offlineNotice = '[offline scripted model]';

/**
 * The model troupe uses when no API key is set. It does not think: it follows a fixed
 * playbook so the whole runtime can be watched working without a network. Given a user
 * requirement and the meta-tools, it creates a role, spawns a child, delegates, terminates the
 * child and answers; given a delegated task, it answers it directly. Every answer says it is scripted.
 */
export class OfflineModel implements ModelClient {
  readonly name = 'offline-scripted';
  readonly scripted = true;
  readonly #chunkDelayMs: number;

  /** `chunkDelayMs` paces the stream like a real model's, so the society can be watched at work. */
  constructor(options: { chunkDelayMs?: number } = {}) {
    this.#chunkDelayMs = options.chunkDelayMs ?? 0;
  }

  /** Offline embeddings: deterministic hashed word and character n-grams (see hashedNgramVector). */
  embed(texts: readonly string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => Array.from(hashedNgramVector(text, defaultHashedNgramDimension))));
  }

  async *chat(request: ChatRequest, options: ChatOptions = {}): AsyncGenerator<ChatDelta> {
    for (const delta of streamReply(planReply(request), options.signal, `call_${request.messages.length}`)) {
      if (this.#chunkDelayMs > 0) await sleep(systemClock, this.#chunkDelayMs, options.signal);
      yield delta;
    }
  }
}

interface ToolExchange {
  readonly name: string;
  readonly arguments: string;
  readonly result: string | undefined;
}

/** The next move of the playbook, from the request alone (deterministic). */
export function planReply(request: ChatRequest): ScriptReply {
  const { incoming, exchanges } = currentTurn(request.messages);
  if (incoming === null) return { text: `${offlineNotice} I have no task to work on.` };
  const tools = new Set(request.tools.map((tool) => tool.name));
  const canDelegate = ['create_role', 'spawn_agent', 'delegate_task', 'terminate_agent'].every((name) => tools.has(name));
  if (incoming.from !== 'user' || !canDelegate) return { text: workerAnswer(incoming.text) };

  const last = exchanges.at(-1);
  const lastResult = parseJson(last?.result);
  // A role kept from an earlier run (a restored organisation) is simply used again.
  const roleExists = last?.name === 'create_role' && typeof lastResult?.['error'] === 'string' && lastResult['error'].includes('already exists');
  if (last !== undefined && !roleExists && (lastResult === undefined || typeof lastResult['error'] === 'string')) {
    return { text: `${offlineNotice} I could not finish: ${last.name} failed with ${last.result ?? 'no result'}.` };
  }
  const role = roleFor(incoming.text);
  switch (last?.name) {
    case undefined:
      return {
        text: `${offlineNotice} I will create a ${role} role and delegate this to it.`,
        toolCalls: [{ name: 'create_role', arguments: { name: role, prompt: `You are a ${role}. Do the task you are given and reply with the result only.` } }],
      };
    case 'create_role':
      return { toolCalls: [{ name: 'spawn_agent', arguments: { role } }] };
    case 'spawn_agent':
      return { toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastResult?.['agentId'], task: incoming.text } }] };
    case 'delegate_task':
      return { toolCalls: [{ name: 'terminate_agent', arguments: { agentId: agentOf(exchanges), reason: 'task done' } }] };
    default: {
      const delegated = parseJson(exchanges.find((exchange) => exchange.name === 'delegate_task')?.result);
      const result = typeof delegated?.['result'] === 'string' ? delegated['result'] : '';
      return { text: `${result.replace(`${offlineNotice} `, '')}\n${offlineNotice} (delegated to a ${role}, who has now been let go)` };
    }
  }
}

/** The Task that started the current turn and the tool calls made since. */
function currentTurn(messages: readonly ChatMessage[]): { incoming: ReturnType<typeof readPrompt>; exchanges: ToolExchange[] } {
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user' && readPrompt(message.content) !== null) {
      start = i;
      break;
    }
  }
  const first = messages[start];
  const incoming = first?.role === 'user' ? readPrompt(first.content) : null;
  const results = new Map<string, string>();
  const exchanges: { id: string; name: string; arguments: string }[] = [];
  for (const message of messages.slice(start + 1)) {
    if (message.role === 'assistant') exchanges.push(...message.toolCalls);
    if (message.role === 'tool') results.set(message.toolCallId, message.content);
  }
  return { incoming, exchanges: exchanges.map((call) => ({ name: call.name, arguments: call.arguments, result: results.get(call.id) })) };
}

function agentOf(exchanges: readonly ToolExchange[]): string {
  const spawned = parseJson(exchanges.find((exchange) => exchange.name === 'spawn_agent')?.result);
  return typeof spawned?.['agentId'] === 'string' ? spawned['agentId'] : '';
}

function roleFor(text: string): string {
  if (/\b(haiku|poem|verse|sonnet)\b/i.test(text)) return 'poet';
  if (/\b(code|function|program|script|bug)\b/i.test(text)) return 'programmer';
  if (/\b(summar|report|analy)/i.test(text)) return 'analyst';
  return 'writer';
}

function workerAnswer(text: string): string {
  const topic = /\babout (.+?)[.!?]*$/i.exec(text.trim())?.[1] ?? 'this';
  if (/\bhaiku\b/i.test(text)) {
    return `${offlineNotice} ${capitalise(topic)} on the roof —\neach drop a small syllable,\nthe grey sky reciting.`;
  }
  return `${offlineNotice} No real model is connected, so this is a placeholder answer to: "${text}".`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
