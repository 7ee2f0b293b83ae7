import { z } from 'zod';
import { visibleText } from '../task/index.js';
import { defineTool, jsonResult } from './tool.js';

/** Importance of a fact the model stores without saying: it chose to keep it, so a little above the middle. */
const defaultImportance = 0.7;
/** Facts `search_memory` returns unless the model asks for another number. */
const defaultSearchResults = 5;
/** Most facts one `search_memory` call may ask for: enough to choose from, few enough for a context. */
const maxSearchResults = 20;

const blankRefused = (schema: z.ZodString): z.ZodString => schema.regex(/\S/, 'must not be blank');

/** Keeps a fact in the calling agent's long-term memory (L4), in the session of the Task it is working on unless `scope` is `agent`. */
export const rememberTool = defineTool({
  name: 'remember',
  description:
    'Store a fact in your long-term memory, to be found again later by search_memory and in your context. ' +
    'By default it belongs to this conversation (scope "session"); scope "agent" keeps it for every conversation. ' +
    'One short self-contained statement (at most 500 characters by default). A fact close to one you already have is merged into it.',
  parameters: z.object({
    // The store's own `maxFactChars` (500 by default) is the limit that matters; this bound only stops a runaway argument early.
    text: visibleText(blankRefused(z.string().max(10_000))).describe('The fact, e.g. "The user prefers answers in French."'),
    scope: z.enum(['session', 'agent']).default('session').describe('"session" (default): this conversation only; "agent": all of them'),
    importance: z.number().min(0).max(1).default(defaultImportance).describe(`How much it matters, 0..1 (default ${defaultImportance})`),
  }),
  // The same fact again is merged into the one already kept, whose text stays.
  annotations: { destructive: false, idempotent: true, openWorld: false },
  execute: async (args, { agentId, task, society }) => {
    const fact = await society.remember({ agentId, sessionId: task.sessionId, text: args.text, scope: args.scope, importance: args.importance });
    return jsonResult({
      id: fact.id,
      text: fact.text,
      scope: fact.scope,
      importance: fact.importance,
      merged: fact.merged,
      note: fact.merged
        ? `you already remembered a fact this close (${fact.id}): the new one was merged into it, whose text is kept`
        : `remembered as ${fact.id}`,
    });
  },
});

/** Finds the calling agent's facts closest to a query: those of the Task's session and its agent-scope ones. */
export const searchMemoryTool = defineTool({
  name: 'search_memory',
  description:
    'Search your long-term memory for the facts closest to a query (facts of this conversation and those kept for every conversation), ' +
    'best first, each with its similarity (at most 1) and what found it (channels: vector similarity, bm25 keyword score). ' +
    'Only facts related to the query are returned: an empty list means you remember nothing about it.',
  parameters: z.object({
    query: blankRefused(z.string().max(4_000)).describe('What to look for'),
    k: z.number().int().min(1).max(maxSearchResults).default(defaultSearchResults).describe(`How many facts at most (default ${defaultSearchResults})`),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  execute: async (args, { agentId, task, society }) => {
    const found = await society.searchMemory({ agentId, sessionId: task.sessionId, query: args.query, k: args.k });
    return jsonResult({
      facts: found.map((fact) => ({
        id: fact.id,
        text: fact.text,
        scope: fact.scope,
        importance: fact.importance,
        similarity: rounded(fact.similarity),
        channels: { bm25: roundedOrNull(fact.channels.bm25), vector: roundedOrNull(fact.channels.vector), graph: roundedOrNull(fact.channels.graph) },
        ...(fact.node === undefined ? {} : { node: fact.node.kind }),
        ...(fact.metadata === undefined ? {} : { metadata: fact.metadata }),
      })),
    });
  },
});

/** Three decimals: what a model can use of a score. */
function rounded(score: number): number {
  return Math.round(score * 1000) / 1000;
}

function roundedOrNull(score: number | null): number | null {
  return score === null ? null : rounded(score);
}
