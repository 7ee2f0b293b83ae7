import { type ToolCall, canonicalJson } from '../../task/index.js';

/**
 * What to do with a tool call given how often the same call (same tool, same arguments)
 * was already made in this turn: run it; refuse it and tell the model why (the `limit`th
 * time); or stop the turn (the model repeated it even after being told).
 */
export type RepeatVerdict = 'run' | 'refuse' | 'stop';

/** Same tool and same arguments, whatever the key order or spacing of the model's JSON. */
function callKey(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  try {
    return `${call.name} ${canonicalJson(JSON.parse(call.arguments) as unknown)}`;
  } catch {
    return `${call.name} ${call.arguments.trim()}`;
  }
}

/** Counts the call and judges it. `counts` is the turn's tally, updated in place. */
export function judgeRepeat(counts: Map<string, number>, call: Pick<ToolCall, 'name' | 'arguments'>, limit: number): RepeatVerdict {
  const key = callKey(call);
  const seen = (counts.get(key) ?? 0) + 1;
  counts.set(key, seen);
  if (seen < limit) return 'run';
  return seen === limit ? 'refuse' : 'stop';
}

export function repeatMessage(name: string, times: number): string {
  return `not run: you have called ${name} with these same arguments ${times} times in this turn; the result will not change. Use what you already have, try something different, or give your final answer. Repeating it again ends the turn.`;
}
