import { z } from 'zod';
import { JsonValueSchema, TaskIdSchema } from '../task/index.js';

// The two kinds of node of seed 002 (events and notes: one physical structure, two meanings),
// one zod schema each: the source of their types and of the checks made when they are read back.

/** Node ids go into LMDB keys and tool arguments: a safe alphabet, and every one sorts below `~`. */
export const NodeIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1–128 letters, digits, "_" or "-"');

/** Whose graph it is: an agent's id, or a name for the society's graph. */
export const OwnerIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1–128 letters, digits, "_" or "-"');

export const NodeKindSchema = z.enum(['event', 'note']);
export type NodeKind = z.infer<typeof NodeKindSchema>;

/** An event's life: `done` and `archived` are finished (they block nothing); `archived` is also hidden by default. */
export const EventStatusSchema = z.enum(['pending', 'in_progress', 'done', 'archived']);
export type EventStatus = z.infer<typeof EventStatusSchema>;

/** Statuses of an event that no longer blocks the events depending on it. */
export const finishedStatuses: ReadonlySet<EventStatus> = new Set(['done', 'archived']);

/** A node's own key-value data, kept as given (at most `maxMetadataBytes` as JSON). */
export const NodeMetadataSchema = z.record(z.string(), JsonValueSchema);

/** Higher runs first among events that are free to run; bounded so it stays an exact integer. */
export const PrioritySchema = z.number().int().min(-1_000_000).max(1_000_000);

/** Milliseconds since the epoch. */
const TimeSchema = z.number().int().nonnegative();

const commonShape = {
  id: NodeIdSchema,
  /** What the note says, or what the event is about. */
  content: z.string(),
  createdAt: TimeSchema,
  updatedAt: TimeSchema,
  metadata: NodeMetadataSchema,
  /** The session the node was made in (retrieval may filter by it); null: belongs to every session. */
  sessionId: TaskIdSchema.nullable(),
};

export const EventNodeSchema = z
  .object({
    kind: z.literal('event'),
    ...commonShape,
    status: EventStatusSchema,
    /** When it is due, or null. */
    dueAt: TimeSchema.nullable(),
    priority: PrioritySchema,
  })
  .strict();

export const NoteNodeSchema = z
  .object({
    kind: z.literal('note'),
    ...commonShape,
    title: z.string(),
    tags: z.array(z.string().min(1)),
    /** Where it came from (a file path, a URL), or null. */
    source: z.string().nullable(),
  })
  .strict();

export const GraphNodeSchema = z.discriminatedUnion('kind', [EventNodeSchema, NoteNodeSchema]);

export type EventNode = z.infer<typeof EventNodeSchema>;
export type NoteNode = z.infer<typeof NoteNodeSchema>;
export type GraphNode = z.infer<typeof GraphNodeSchema>;
