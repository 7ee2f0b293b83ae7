import { z } from 'zod';
import { TaskIdSchema, TaskSchema } from '../task/index.js';
import type { Task } from '../task/index.js';

// The records of one agent's memory in the `memory-entries` sub-db, keyed `[agentId, seq]`.
// Every record carries its tier, so moving an entry from L1 to L2 is one put of the same key,
// and every other move (entries out, a summary or a pending promotion in) is one transaction.

const timestamp = z.number().int().nonnegative();

/** What every entry of L1–L3 has: its session, importance and how often it was used. */
const entryFields = {
  v: z.literal(1),
  sessionId: TaskIdSchema,
  /** Base importance 0..1; decay and retrievals are applied on top by `effectiveImportance`. */
  importance: z.number().min(0).max(1),
  /** How often the entry was returned to a context. */
  retrievals: z.number().int().nonnegative(),
  /** When the entry's content was observed (for a summary: the newest Task it summarises). */
  createdAt: timestamp,
  lastRetrievedAt: timestamp.nullable(),
};

/** L1 (recent) or L2 (important): a full Task as the agent saw it on the bus. */
export const TaskEntryRecordSchema = z
  .object({
    ...entryFields,
    tier: z.enum(['L1', 'L2']),
    task: TaskSchema,
    /** Important when observed (base importance above `l2Threshold`): goes to L2, not L3, when it leaves L1. */
    forL2: z.boolean(),
  })
  .strict();

/** Where an L3 summary came from: the model, or the extractive fallback that needs none. */
export const SummarySourceSchema = z.enum(['model', 'extractive']);

/** L3: a short summary of Tasks of one session; never a full Task. */
export const SummaryEntryRecordSchema = z
  .object({
    ...entryFields,
    tier: z.literal('L3'),
    summary: z.string().min(1).max(200),
    /** The Tasks it summarises, without repeats. */
    taskIds: z.array(TaskIdSchema).min(1),
    source: SummarySourceSchema,
  })
  .strict();

/**
 * Summaries on their way to L4: they left L3 in the transaction that wrote this record, with
 * the facts extracted from them. The facts are added to the FactStore one by one, each marked
 * with `promotionId`; then this record is removed. After a crash in between, the facts whose
 * marker is missing from the FactStore are added, so none is lost or added twice.
 */
export const PendingFactsRecordSchema = z
  .object({
    v: z.literal(1),
    tier: z.literal('toL4'),
    promotionId: z.string().min(1).max(128),
    sessionId: TaskIdSchema,
    importance: z.number().min(0).max(1),
    facts: z.array(z.string().min(1).max(500)).min(1),
    taskIds: z.array(TaskIdSchema).min(1),
    createdAt: timestamp,
  })
  .strict();

export const MemoryRecordSchema = z.discriminatedUnion('tier', [TaskEntryRecordSchema, SummaryEntryRecordSchema, PendingFactsRecordSchema]);

export type SummarySource = z.infer<typeof SummarySourceSchema>;

/** The entry's place in its agent's memory: the second part of its key, never reused while the entry exists. */
interface Keyed {
  readonly seq: number;
}

/** An L1 or L2 entry, as the query API returns it. */
export type TaskEntry = Keyed & Readonly<Omit<z.infer<typeof TaskEntryRecordSchema>, 'task'>> & { readonly task: Task };
/** An L3 entry. */
export type SummaryEntry = Keyed & Readonly<z.infer<typeof SummaryEntryRecordSchema>>;
/** Facts waiting to be added to L4. */
export type PendingFacts = Keyed & Readonly<z.infer<typeof PendingFactsRecordSchema>>;
/** Any entry of L1–L3. */
export type MemoryEntry = TaskEntry | SummaryEntry;
/** Anything one agent's memory holds in its own records. */
export type StoredEntry = MemoryEntry | PendingFacts;

/** The metadata of a fact made from L3 summaries: its provenance, and the marker that makes its promotion exactly-once. */
export const PromotionMarkerSchema = z.object({
  promotionId: z.string(),
  part: z.number().int().nonnegative(),
});
