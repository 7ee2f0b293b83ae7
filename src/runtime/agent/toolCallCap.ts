import type { ToolCall } from '../../task/index.js';
import { type ToolResult, errorResult } from '../../tools/index.js';

/**
 * The calls of one model reply past the first `cap`, in the reply's order: they are never run.
 * Judged on the whole reply, never on what is left of it, so a turn resumed with some of its
 * calls answered still runs none past the cap.
 */
export function callsOverCap(reply: readonly ToolCall[], cap: number): ReadonlySet<ToolCall> {
  return new Set(reply.slice(cap));
}

/** What the model reads as the result of a call its reply made past `maxToolCallsPerReply`. */
export function overCapResult(asked: number, cap: number): ToolResult {
  return errorResult(
    `not run: your reply asked for ${asked} tool calls, more than the ${cap} one reply may make (maxToolCallsPerReply); the first ${cap} ran. Ask for the rest in your next reply.`,
    'tool_call_limit',
  );
}
