import { type ChatMessage, type Task, type ToolCall, taskAsPrompt } from '../../task/index.js';

/** How far a turn on a Task had got, read back from the agent's stored conversation. */
export interface ResumePoint {
  /** Model calls the turn had made whose work is done (the machine's step count). */
  readonly step: number;
  /** Every tool call the turn made before it stopped that has its result, oldest first (for the repeat guard). */
  readonly done: readonly ToolCall[];
  /** Calls of the last model reply whose results never reached the conversation: to be run now. */
  readonly unanswered: readonly ToolCall[];
  /** Every call of the last model reply, in its order, answered or not (`unanswered` holds the same objects). */
  readonly lastCalls: readonly ToolCall[];
  /** The final answer, when the turn had finished but its reply was never sent. */
  readonly answer?: string;
}

/**
 * Where the turn on `task` stopped, from the conversation: its prompt is the last user
 * message, and what follows is the turn's own model replies and tool results. Null when the
 * turn never began (or its prompt was compressed away): then it starts over.
 */
export function resumePoint(messages: readonly ChatMessage[], task: Task): ResumePoint | null {
  const start = messages.findLastIndex((message) => message.role === 'user');
  if (start < 0 || messages[start]?.content !== taskAsPrompt(task)) return null;
  const after = messages.slice(start + 1);
  const replies = after.flatMap((message) => (message.role === 'assistant' ? [message] : []));
  const answered = new Set(after.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const last = replies.at(-1);
  const calls = replies.flatMap((reply) => reply.toolCalls);
  const lastCalls = last?.toolCalls ?? [];
  const unanswered = lastCalls.filter((call) => !answered.has(call.id));
  const done = calls.filter((call) => answered.has(call.id));
  if (last !== undefined && last.toolCalls.length === 0) return { step: replies.length - 1, done, unanswered: [], lastCalls, answer: last.content };
  return { step: unanswered.length > 0 ? replies.length - 1 : replies.length, done, unanswered, lastCalls };
}

/**
 * Tool results for calls no turn will finish (their Task was answered or dropped while they
 * ran), so the conversation stays one a model accepts: every call answered before the next
 * message. Empty when nothing dangles.
 */
export function closeDanglingCalls(messages: readonly ChatMessage[], reason: string): ChatMessage[] {
  const at = messages.findLastIndex((message) => message.role === 'assistant');
  const lastReply = messages[at];
  const tail = messages.slice(at + 1);
  // Only calls at the very end dangle; anything else after them means the turn moved on.
  if (lastReply?.role !== 'assistant' || !tail.every((message) => message.role === 'tool')) return [];
  const answered = new Set(messages.slice(at + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  return lastReply.toolCalls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({ role: 'tool', toolCallId: call.id, name: call.name, content: `not run: ${reason}` }));
}
