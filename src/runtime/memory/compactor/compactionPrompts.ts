import { z } from 'zod';
import { TroupeError } from '../../../errors.js';
import type { ChatRequest } from '../../../llm/index.js';
import type { HelperBounds } from '../../../memory/index.js';
import { type Task, taskText } from '../../../task/index.js';

// What the compactor asks a model, and how its replies are checked. The requests carry no tools
// and a max tokens; the items of one request share `maxInputChars` evenly, so a 100,000-character
// Task cannot crowd the others out or make the request unbounded.

/** Each of `items` cut to an even share of `maxInputChars`. */
function shared(items: readonly string[], maxInputChars: number): string[] {
  const share = Math.max(1, Math.floor(maxInputChars / Math.max(1, items.length)));
  return items.map((item) => (item.length <= share ? item : `${item.slice(0, Math.max(0, share - 1))}…`));
}

/** One Task as a line: who to whom, its status when it is not a plain request or answer, what it says. */
function taskLine(task: Task): string {
  const status = task.status === 'submitted' || task.status === 'completed' ? '' : ` (${task.status})`;
  const said = task.error?.message ?? taskText(task);
  return `${task.from} → ${task.to}${status}: ${said.replace(/\s+/g, ' ').trim()}`;
}

/** A request for a summary of `tasks` (one session's exchange) of at most `summaryMaxChars`. */
export function summaryRequest(
  tasks: readonly Task[],
  limits: { readonly summaryMaxChars: number; readonly maxInputChars: number; readonly maxTokens: number },
): ChatRequest {
  const system =
    `You keep an agent's long-term memory. Summarise the exchange below in one plain sentence of at most ${limits.summaryMaxChars} characters: ` +
    'who asked for what, and what came of it (names, numbers and decisions first). Reply with the summary only: no preamble, no quotes.';
  return {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: shared(tasks.map(taskLine), limits.maxInputChars).join('\n') },
    ],
    tools: [],
    maxTokens: limits.maxTokens,
  };
}

/** A request for at most `maxFactsPerBatch` facts from `summaries`, as JSON. */
export function factsRequest(summaries: readonly string[], limits: HelperBounds & { readonly maxInputChars: number; readonly maxTokens: number }): ChatRequest {
  const system =
    `You keep an agent's long-term memory. From the summaries below, extract at most ${limits.maxFactsPerBatch} facts worth remembering. ` +
    `Each fact is one short sentence of at most ${limits.factMaxChars} characters that stands on its own: name people and things instead of ` +
    `"he" or "it". Reply with JSON only, in this form: {"facts": ["…", "…"]}`;
  return {
    messages: [
      { role: 'system', content: system },
      {
        role: 'user',
        content: shared(summaries, limits.maxInputChars)
          .map((summary) => `- ${summary}`)
          .join('\n'),
      },
    ],
    tools: [],
    maxTokens: limits.maxTokens,
  };
}

/** A summary reply as L3 takes it: trimmed, within `summaryMaxChars`, else refused (the caller falls back). */
export function checkedSummary(reply: string, summaryMaxChars: number): string {
  const summary = reply.trim();
  if (summary.length > summaryMaxChars) {
    throw new TroupeError('model_error', `the summary is ${summary.length} characters, over summaryMaxChars (${summaryMaxChars})`);
  }
  return summary;
}

const FactsReplySchema = z.union([z.object({ facts: z.array(z.string()) }).transform((reply) => reply.facts), z.array(z.string())]);

/**
 * The facts of a reply: `{"facts": [...]}` or a bare list of strings, possibly in a Markdown code
 * fence (models often add one). Refused as a whole, naming what is wrong, when it is not that JSON,
 * or holds more than `maxFactsPerBatch` facts or one longer than `factMaxChars`: a model that
 * ignored those bounds is not trusted with the rest.
 */
export function parsedFacts(reply: string, bounds: HelperBounds): string[] {
  const json = reply.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/u, '$1');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new TroupeError('model_error', `the facts reply is not JSON: ${JSON.stringify(json.slice(0, 80))}`);
  }
  const parsed = FactsReplySchema.safeParse(value);
  if (!parsed.success) throw new TroupeError('model_error', 'the facts reply is neither {"facts": [strings]} nor a list of strings');
  const facts = parsed.data.map((fact) => fact.trim()).filter((fact) => fact !== '');
  if (facts.length > bounds.maxFactsPerBatch) {
    throw new TroupeError('model_error', `the reply holds ${facts.length} facts, over maxFactsPerBatch (${bounds.maxFactsPerBatch})`);
  }
  const long = facts.find((fact) => fact.length > bounds.factMaxChars);
  if (long !== undefined) throw new TroupeError('model_error', `a fact is ${long.length} characters, over factMaxChars (${bounds.factMaxChars})`);
  return facts;
}
