import { z } from 'zod';
import { JsonValueSchema, TaskIdSchema, visibleText } from '../../task/index.js';
import type { HitChannels } from './hybridHits.js';

// The records of L4, one zod schema each: the source of their types and of the checks made when
// they are read back from LMDB (a record that fails is skipped and logged, never trusted).

/** `session` facts belong to one session (stored with its id); `agent` facts to every session of the agent (sessionId null). */
export const FactScopeSchema = z.enum(['session', 'agent']);
export type FactScope = z.infer<typeof FactScopeSchema>;

/** A fact's own key-value data, kept as given. */
const FactMetadataSchema = z.record(z.string(), JsonValueSchema);

/** `f` and the fact's number in its agent's store, which is also its vector's label in the index. */
const FactIdSchema = z.string().regex(/^f(0|[1-9][0-9]{0,15})$/, 'must be "f" and a number');

const scopeAndSession = {
  check: (fact: { scope: FactScope; sessionId: string | null }): boolean => (fact.scope === 'agent') === (fact.sessionId === null),
  message: { message: "a 'session' fact needs its sessionId, an 'agent' fact has sessionId null", path: ['sessionId'] },
};

const newFactShape = {
  /** What is remembered; at most `maxFactChars` (500 by default). */
  text: z.string().refine((text) => text.trim() !== '', 'must not be blank'),
  scope: FactScopeSchema,
  sessionId: TaskIdSchema.nullable(),
  /** 0..1: how much it matters (see effectiveImportance). */
  importance: z.number().min(0).max(1),
  metadata: FactMetadataSchema.optional(),
};

/**
 * A fact to remember, as `FactStore.add` takes it: its text must show what it holds (checked on
 * the way in only, so a fact stored before the rule still reads back).
 */
export const NewFactSchema = z
  .object({ ...newFactShape, text: visibleText(newFactShape.text) })
  .strict()
  .refine(scopeAndSession.check, scopeAndSession.message);
export type NewFact = z.infer<typeof NewFactSchema>;

/** A stored fact: what `add`, `search` and `list` return, and the record kept in `memory-facts`. */
export const FactSchema = z
  .object({
    v: z.literal(1),
    id: FactIdSchema,
    ...newFactShape,
    /** How often it was returned by a search (each raises its effective importance). */
    retrievals: z.number().int().nonnegative(),
    createdAt: z.number(),
    /** The embedder of its vector (`id`), null when stored without one. */
    embedder: z.string().min(1).nullable(),
    /** Ids of the facts (or near-duplicates added later) merged into this one, newest last, at most `maxMergedFrom`. */
    mergedFrom: z.array(z.string()),
    /** For a fact made by compression: the lowest cosine between its vector and an original's (at least `fidelityThreshold`). */
    fidelity: z.number().min(-1).max(1).nullable(),
  })
  .refine(scopeAndSession.check, scopeAndSession.message);
export type Fact = z.infer<typeof FactSchema>;

export interface FactHit {
  readonly fact: Fact;
  /**
   * Cosine of the fact's vector to the query's (with an embedder), or word overlap (without one):
   * higher is closer, at most 1. Set for every hit, also one only the keyword channel found.
   */
  readonly similarity: number;
  /** What each retrieval channel said of it (see HitChannels): the hits are ranked by fusing them. */
  readonly channels: HitChannels;
  /**
   * Set when the hit is a node of the agent's graph, not a fact: `fact` then shows the node (its
   * id, its text, its session, when it last changed, its metadata; no retrievals are counted).
   */
  readonly node?: { readonly kind: 'event' | 'note' };
}

/**
 * What one compression did. Adds wait while it runs, so its counts are the whole change:
 * `after = before - mergedAway + merged - dropped`.
 */
export interface CompressionReport {
  /** Groups of two or more facts found close enough to merge (cosine ≥ clusterThreshold). */
  readonly clusters: number;
  /** Clusters merged into one fact each: the merged facts stored. */
  readonly merged: number;
  /** Facts the merged ones replaced (the merged clusters' originals), removed. */
  readonly mergedAway: number;
  /** Clusters whose merge failed the fidelity check: their facts were kept as they were. */
  readonly keptForFidelity: number;
  /** Facts removed without merging, down to `keepTopN`: the least important of each session over its share (see dropsByGroup), without an embedder or when merging left more in a compression that was due. */
  readonly dropped: number;
  readonly before: number;
  readonly after: number;
}

/**
 * A fact's vector in `memory-vectors`: the source of truth an index is rebuilt from. `v: 2`, the
 * one written: little-endian float16s (see `halfPrecision`); `v: 1`, written before: float32s,
 * still read as they are.
 */
export const VectorRecordSchema = z.discriminatedUnion('v', [
  z.object({ v: z.literal(1), embedder: z.string().min(1), vector: z.instanceof(Uint8Array) }),
  z.object({ v: z.literal(2), embedder: z.string().min(1), vector: z.instanceof(Uint8Array) }),
]);
export type VectorRecord = z.infer<typeof VectorRecordSchema>;

/** One agent's L4 bookkeeping in `memory-meta`. */
export const FactMetaSchema = z.object({
  v: z.literal(1),
  /** The embedder every stored vector was made with, and its dimension (null: facts stored without vectors, or none yet). */
  embedder: z.string().min(1).nullable(),
  dimension: z.number().int().positive().nullable(),
  /** Counts changes to the stored vectors; an index file saved at another generation is stale. */
  generation: z.number().int().nonnegative(),
  /** The number of the next fact id. */
  nextId: z.number().int().nonnegative(),
});
export type FactMeta = z.infer<typeof FactMetaSchema>;

/** The id of fact number `n`. */
export function factIdOf(n: number): string {
  return `f${n}`;
}

/** The number of a fact (its id without the `f`), which labels its vector in the index. */
export function labelOf(id: string): number {
  return Number(id.slice(1));
}

/**
 * Whether a fact shows to a reader of `sessionId`: that session's own facts and agent-scope ones;
 * with null, agent-scope ones only; with undefined (no session named), every fact.
 */
export function visibleTo(fact: Fact, sessionId: string | null | undefined): boolean {
  return sessionId === undefined || fact.sessionId === null || fact.sessionId === sessionId;
}

/** Facts of one scope and session share a group: a near-duplicate is merged, and a cluster compressed, only within one. */
export const groupOf = (fact: { readonly sessionId: string | null }): string => (fact.sessionId === null ? '' : `session:${fact.sessionId}`);

/** The groups whose facts `visibleTo` shows a reader of `sessionId` (undefined: every group). */
export function groupsVisibleTo(sessionId: string | null | undefined): string[] | undefined {
  if (sessionId === undefined) return undefined;
  return sessionId === null ? [''] : ['', groupOf({ sessionId })];
}

/** Oldest first, then by number: the order facts are listed in. */
export function oldestFirst(a: Fact, b: Fact): number {
  return a.createdAt - b.createdAt || labelOf(a.id) - labelOf(b.id);
}
