import { z } from 'zod';

/** Artifact ids: 32 lower-case hex digits (see `artifactId`). */
export const ArtifactIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex digits');

/** What the store says of an artifact everywhere it is named: the model's reference, the log, listings. */
export const ArtifactRefSchema = z
  .object({
    id: ArtifactIdSchema,
    name: z.string().min(1),
    mediaType: z.string().min(1),
    /** Bytes of its content (UTF-8 for text). */
    size: z.number().int().nonnegative(),
    /** The Task whose tool call produced it; its artifacts go together when it is evicted. */
    taskId: z.string().min(1),
    sessionId: z.string().min(1),
    createdAt: z.number().int().nonnegative(),
  })
  .strict();

export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;

/** An artifact's stored description (its bytes are kept apart): whether it was given as text says how it is handed back. */
export const ArtifactRecordSchema = ArtifactRefSchema.extend({ v: z.literal(1), text: z.boolean() }).strict();
export type ArtifactRecord = z.infer<typeof ArtifactRecordSchema>;

/** The artifacts one Task owns, for its limit and for eviction: `endedAt` set once the Task reached a final status. */
export const ArtifactTaskSchema = z
  .object({
    v: z.literal(1),
    taskId: z.string().min(1),
    sessionId: z.string().min(1),
    ids: z.array(ArtifactIdSchema),
    bytes: z.number().int().nonnegative(),
    endedAt: z.number().int().nonnegative().nullable(),
  })
  .strict();
export type ArtifactTask = z.infer<typeof ArtifactTaskSchema>;

/** A Task that ended with artifacts, in the order they may be evicted. */
export interface EndedTask {
  readonly endedAt: number;
  readonly taskId: string;
  readonly sessionId: string;
}

/** One atomic change to the artifact tables. */
export interface ArtifactChange {
  readonly put?: { readonly record: ArtifactRecord; readonly content: Uint8Array };
  readonly tasks?: readonly ArtifactTask[];
  readonly ended?: readonly EndedTask[];
  readonly removeIds?: readonly string[];
  readonly removeTasks?: readonly ArtifactTask[];
  readonly removeEnded?: readonly EndedTask[];
}

/**
 * Where artifacts are kept: LMDB sub-dbs of the org store's environment, or maps in memory. Reads
 * return what is stored as is (unchecked: the store validates); `change` applies one change atomically.
 */
export interface ArtifactTable {
  record(id: string): unknown;
  content(id: string): Uint8Array | undefined;
  task(sessionId: string, taskId: string): unknown;
  /** The task records of one session. */
  sessionTasks(sessionId: string): Iterable<{ readonly key: string; readonly value: unknown }>;
  /** Every task record, for the store's total at open. */
  allTasks(): Iterable<{ readonly key: string; readonly value: unknown }>;
  /** Ended Tasks, earliest ended first. */
  endedTasks(): Iterable<EndedTask>;
  change(change: ArtifactChange): Promise<void>;
}
