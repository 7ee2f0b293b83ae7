import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { TaskIdSchema } from '../task/index.js';
import type { GraphLimits } from './graphLimits.js';
import { EventStatusSchema, type GraphNode, NodeIdSchema, NodeMetadataSchema, PrioritySchema } from './nodeSchema.js';

// What callers give to make or change a node: the stored fields they may set, the rest (kind,
// times) filled in by the graph. Fields' sizes are checked against the graph's limits after the
// schema (see checkNodeBounds), so the limits stay options rather than constants of a schema.

const TimeSchema = z.number().int().nonnegative();

const commonInput = {
  content: z.string(),
  metadata: NodeMetadataSchema.optional(),
  sessionId: TaskIdSchema.nullable().optional(),
};

/** A new event; `id` is made when not given. */
export const NewEventSchema = z
  .object({
    id: NodeIdSchema.optional(),
    ...commonInput,
    status: EventStatusSchema.optional(),
    dueAt: TimeSchema.nullable().optional(),
    priority: PrioritySchema.optional(),
  })
  .strict();
export type NewEvent = z.input<typeof NewEventSchema>;

/** A new note; `id` is made when not given. */
export const NewNoteSchema = z
  .object({
    id: NodeIdSchema.optional(),
    ...commonInput,
    title: z.string().optional(),
    tags: z.array(z.string().min(1)).optional(),
    source: z.string().nullable().optional(),
  })
  .strict();
export type NewNote = z.input<typeof NewNoteSchema>;

/** The fields of an event that may change (a field left out stays as it was). */
export const EventPatchSchema = NewEventSchema.omit({ id: true }).partial().strict();
/** The fields of a note that may change (a field left out stays as it was). */
export const NotePatchSchema = NewNoteSchema.omit({ id: true }).partial().strict();
export type NodePatch = z.input<typeof EventPatchSchema> | z.input<typeof NotePatchSchema>;

/** Refuses, naming the field and the option, a node whose content, title, tags, source or metadata is past `limits`. */
export function checkNodeBounds(node: GraphNode, limits: GraphLimits): void {
  tooLong('content', node.content.length, limits.maxContentChars, 'maxContentChars');
  const metadataBytes = Buffer.byteLength(JSON.stringify(node.metadata));
  if (metadataBytes > limits.maxMetadataBytes) {
    throw new ValidationError('metadata', `${metadataBytes} bytes as JSON, more than maxMetadataBytes (${limits.maxMetadataBytes})`);
  }
  if (node.kind === 'event') return;
  tooLong('title', node.title.length, limits.maxTitleChars, 'maxTitleChars');
  if (node.source !== null) tooLong('source', node.source.length, limits.maxSourceChars, 'maxSourceChars');
  if (node.tags.length > limits.maxTags) throw new ValidationError('tags', `${node.tags.length} tags, more than maxTags (${limits.maxTags})`);
  node.tags.forEach((tag, index) => tooLong(`tags[${index}]`, tag.length, limits.maxTagChars, 'maxTagChars'));
}

function tooLong(field: string, length: number, max: number, option: string): void {
  if (length > max) throw new ValidationError(field, `${length} characters, more than ${option} (${max})`);
}
