import { z } from 'zod';
import { JsonValueSchema, TaskIdSchema } from '../../task/index.js';

// What `rt.memory(agentId, query)` is asked and answers, one zod schema each: the source of the
// types, of the checks (a bad query is refused naming its field), and of the HTTP reply's schema.

export const MemoryTierSchema = z.enum(['l1', 'l2', 'l3', 'l4']);
export type MemoryTier = z.infer<typeof MemoryTierSchema>;

/** Most entries one page of a view holds (its `limit`). */
export const maxMemoryPageSize = 500;
/** Entries a page holds unless `limit` says otherwise. */
const defaultMemoryPageSize = 50;
/** Most facts one search of a view returns (its `k`). */
export const maxMemorySearchResults = 100;
/** Facts a search returns unless `k` says otherwise. */
const defaultMemorySearchResults = 10;
/** Longest search text a view takes (the fact store's own `maxQueryChars` applies too). */
export const maxMemorySearchChars = 4000;
/** An entry's text in a view is cut here (after redaction), ending in `…`: a remembered Task may be a long answer. */
export const memoryViewTextChars = 2000;

/**
 * A view of an agent's memory: the counts of every tier, and the entries of one tier (`tier`),
 * a page at a time, or the L4 facts closest to `search`. `sessionId` keeps one session's
 * entries (and for L4, its facts and the agent-scope ones). Without `tier` or `search`, counts only.
 */
export const MemoryQuerySchema = z
  .object({
    tier: MemoryTierSchema.optional(),
    sessionId: TaskIdSchema.optional(),
    offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    limit: z.number().int().min(1).max(maxMemoryPageSize).optional(),
    search: z.string().regex(/\S/, 'must not be blank').max(maxMemorySearchChars).optional(),
    k: z.number().int().min(1).max(maxMemorySearchResults).optional(),
  })
  .strict()
  .superRefine((query, context) => {
    const refuse = (path: string, message: string): void => context.addIssue({ code: 'custom', path: [path], message });
    if (query.search === undefined) {
      if (query.k !== undefined) refuse('k', 'is how many facts a search returns: give search too');
      return;
    }
    if (query.tier !== undefined && query.tier !== 'l4') refuse('tier', `is ${query.tier}, but search looks through L4 facts: leave tier out or give l4`);
    if (query.offset !== undefined) refuse('offset', 'pages a tier; a search returns its k closest facts, unpaged');
    if (query.limit !== undefined) refuse('limit', 'pages a tier; a search returns its k closest facts (k)');
  })
  .transform((query) => ({
    tier: query.search === undefined ? (query.tier ?? null) : ('l4' as const),
    sessionId: query.sessionId ?? null,
    offset: query.offset ?? 0,
    limit: query.limit ?? defaultMemoryPageSize,
    search: query.search === undefined ? null : { text: query.search, k: query.k ?? defaultMemorySearchResults },
  }));

export type MemoryQueryInput = z.input<typeof MemoryQuerySchema>;
export type MemoryQuery = z.output<typeof MemoryQuerySchema>;

const time = z.number().int().nonnegative();
const importance = z.number().min(0).max(1);

/** An L1 or L2 entry: the remembered Task, summarised (its text cut at `memoryViewTextChars`). */
const MemoryTaskItemSchema = z.object({
  tier: z.enum(['l1', 'l2']),
  /** The entry's number in its agent's memory. */
  seq: z.number().int().nonnegative(),
  /** The Task's id. */
  id: z.string(),
  from: z.string(),
  to: z.string(),
  action: z.string(),
  status: z.string(),
  sessionId: z.string(),
  /** Base importance (it fades with age and rises with retrievals). */
  importance,
  retrievals: z.number().int().nonnegative(),
  /** When it was remembered. */
  createdAt: time,
  text: z.string(),
});

/** An L3 entry: a summary of Tasks of one session. */
const MemorySummaryItemSchema = z.object({
  tier: z.literal('l3'),
  seq: z.number().int().nonnegative(),
  sessionId: z.string(),
  importance,
  retrievals: z.number().int().nonnegative(),
  /** When the newest Task it summarises was remembered. */
  createdAt: time,
  text: z.string(),
  /** The Tasks it summarises. */
  taskIds: z.array(z.string()),
  /** Written by the model, or by the extractive fallback. */
  source: z.enum(['model', 'extractive']),
});

/**
 * What each retrieval channel said of a fact a search found, null where a channel did not return
 * it: `vector` its cosine to the query (word overlap without an embedder), `bm25` its normalised
 * keyword score (0..1), `graph` its score through a link from a better hit (0..1).
 */
const HitChannelsSchema = z.object({ bm25: z.number().nullable(), vector: z.number().nullable(), graph: z.number().nullable() });

/** An L4 fact; `similarity` is its cosine to the search (null when listed, not searched), `channels` what found it. */
const MemoryFactItemSchema = z.object({
  tier: z.literal('l4'),
  id: z.string(),
  scope: z.enum(['session', 'agent']),
  /** Its session, or null for an agent-scope fact. */
  sessionId: z.string().nullable(),
  importance,
  retrievals: z.number().int().nonnegative(),
  createdAt: z.number(),
  text: z.string(),
  /** Facts merged into it (near-duplicates, or a compressed cluster). */
  merged: z.number().int().nonnegative(),
  /** For a fact made by compression: the lowest cosine to an original. */
  fidelity: z.number().nullable(),
  similarity: z.number().nullable(),
  channels: HitChannelsSchema.nullable(),
  /** Set when the hit is a node of the agent's graph (an event or a note), not a fact. */
  node: z.object({ kind: z.enum(['event', 'note']) }).optional(),
  /** What it was stored with (`rt.remember`, an import), redacted: for example the id of its source. */
  metadata: z.record(z.string(), JsonValueSchema).optional(),
});

export const MemoryItemSchema = z.discriminatedUnion('tier', [MemoryTaskItemSchema, MemorySummaryItemSchema, MemoryFactItemSchema]);
export type MemoryItem = z.infer<typeof MemoryItemSchema>;

/** What `rt.memory` returns: plain data, its free text redacted. */
export const MemoryViewSchema = z.object({
  agentId: z.string(),
  /** `live`: the agent's open memory; `store`: what the store keeps of a memory that is not open (a terminated agent's). */
  source: z.enum(['live', 'store']),
  /** The session asked for, or null for every session. */
  sessionId: z.string().nullable(),
  /** Entries of each tier (in the session, when one is asked for; L4: its facts and the agent-scope ones). */
  counts: z.object({ l1: z.number().int(), l2: z.number().int(), l3: z.number().int(), l4: z.number().int() }),
  /** The tier shown, or null for counts only. */
  tier: MemoryTierSchema.nullable(),
  /** The search made, or null for a page of a tier. */
  search: z.object({ text: z.string(), k: z.number().int() }).nullable(),
  /** Entries of the tier in all (a search: facts found), so a client knows when it has paged to the end. */
  total: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  entries: z.array(MemoryItemSchema),
});
export type MemoryView = z.infer<typeof MemoryViewSchema>;
