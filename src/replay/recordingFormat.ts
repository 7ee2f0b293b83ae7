import { z } from 'zod';
import { type JsonValue, TaskSchema } from '../task/index.js';

/**
 * A value of a line the reader parsed with JSON.parse: JSON by construction, so it is not walked
 * again (as `z.json()` would, for every message, delta and Task of a recording).
 */
const JsonValueSchema = z.custom<JsonValue>(() => true);

/** A recorded Task: checked as every Task is, but its JSON values (parameters, result, metadata) taken as parsed. */
const RecordedTaskSchema = TaskSchema.extend({
  parameters: z.record(z.string(), JsonValueSchema),
  result: JsonValueSchema.nullable(),
  metadata: TaskSchema.shape.metadata.catchall(JsonValueSchema),
});

/**
 * A recording is JSON lines: a header line first, then one record a line in the order the run
 * consumed them, so a run that crashes leaves every line before the last readable. This is the
 * version of that format this troupe writes; it reads it and the versions before it
 * (`readableRecordingVersions`), and refuses a file of any other.
 */
export const recordingFormatVersion = 2;

/** Version 1 stored every message of every model request in full; version 2 stores each message once (`msg`) and refers to it. */
export const readableRecordingVersions: readonly number[] = [1, recordingFormatVersion];

/** What the first line says: the format, its version, and what the run was made with. */
export const RecordingHeaderSchema = z
  .object({
    k: z.literal('header'),
    format: z.literal('troupe-recording'),
    version: z.number().int(),
    /**
     * The models the run was given: the default (`as: ''`) first, then `models` under the names they
     * were given by (`as`). A replay model of the same name stands in for each, scripted when it was (the runtime
     * asks a scripted model less: no compaction, no routing by model).
     */
    models: z.array(z.object({ as: z.string(), name: z.string(), scripted: z.boolean() }).strict()),
    /** The runtime's settings that are plain values (limits, the root's prompt): a replay starts with them unless told otherwise. */
    settings: z.record(z.string(), JsonValueSchema),
    /** The run's embedder, when its vectors are not computed alike every time (a model's): its vectors are recorded, and a replay hands them back. */
    embedder: z.object({ id: z.string(), dimension: z.number().int().positive() }).strict().optional(),
  })
  .strict();

export type RecordingHeader = z.infer<typeof RecordingHeaderSchema>;

/** A tool of the run's registry, as a stand-in for it is made in a replay that is not given its code. */
const RecordedToolSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    annotations: z.record(z.string(), z.boolean()).optional(),
  })
  .strict();

export type RecordedTool = z.infer<typeof RecordedToolSchema>;

/** A failure that ended a model call or a tool call, as the run saw it. */
const RecordedFailureSchema = z.object({ code: z.string(), message: z.string() }).strict();

/**
 * A model request as stored: its messages (redacted), the names of its tools and the digest of
 * their definitions. On disk a message may be a number, the `i` of the `msg` record that holds it:
 * a turn sends its earlier messages again with every request, and each is written once.
 */
export const StoredRequestSchema = z
  .object({
    model: z.string(),
    tools: z.object({ digest: z.string(), names: z.array(z.string()) }).strict(),
    messages: z.array(JsonValueSchema),
  })
  .strict();

export type StoredRequest = z.infer<typeof StoredRequestSchema>;

/** What a tool returned, with an artifact's bytes as base64. */
const RecordedToolResultSchema = z
  .object({
    content: z.string(),
    metadata: z.record(z.string(), JsonValueSchema).optional(),
    artifacts: z.array(z.object({ name: z.string(), mediaType: z.string(), text: z.string().optional(), base64: z.string().optional() }).strict()).optional(),
    isError: z.boolean().optional(),
  })
  .strict();

export type RecordedToolResult = z.infer<typeof RecordedToolResultSchema>;

/** Every line after the header. */
export const RecordSchema = z.discriminatedUnion('k', [
  /** Readings of the clock, in order. */
  z.object({ k: z.literal('clock'), at: z.array(z.number()) }).strict(),
  /** A Task id (`of: 'task'`) or an agent id of `role` the run made. */
  z.object({ k: z.literal('id'), of: z.enum(['task', 'agent']), role: z.string().optional(), v: z.string() }).strict(),
  /** A model call: its request's digest, the request (for a divergence's diff), the streamed reply, and how it failed if it did. */
  z
    .object({
      k: z.literal('model'),
      digest: z.string(),
      request: StoredRequestSchema,
      deltas: z.array(z.record(z.string(), JsonValueSchema)),
      error: RecordedFailureSchema.optional(),
    })
    .strict(),
  /** A model call began, asking the request of this digest (its reply is the next `model` record of the digest). */
  z.object({ k: z.literal('ask'), digest: z.string() }).strict(),
  /** A message of a model request (redacted), the `i`th from 0, written before the first request that sends it. */
  z.object({ k: z.literal('msg'), i: z.number().int().nonnegative(), m: JsonValueSchema }).strict(),
  /**
   * A call of a tool that is not replayed by running it: its arguments (canonical JSON) and what it
   * returned or threw; or, when the turn gave up on it first (its timeout, its caller's abort),
   * `abandoned` with why, since what the tool returned later is not what the turn saw.
   */
  z
    .object({
      k: z.literal('tool'),
      tool: z.string(),
      args: z.string(),
      result: RecordedToolResultSchema.optional(),
      error: RecordedFailureSchema.optional(),
      abandoned: RecordedFailureSchema.optional(),
    })
    .strict(),
  /** An embedding call: the digest of its texts (redacted), and the vectors it gave (little-endian float32, base64) or how it failed. */
  z.object({ k: z.literal('embed'), digest: z.string(), vectors: z.array(z.string()).optional(), error: RecordedFailureSchema.optional() }).strict(),
  /** The run's tools, once it has started. */
  z.object({ k: z.literal('tools'), tools: z.array(RecordedToolSchema) }).strict(),
  /** Something a part of the runtime chose to record (`recorder.note`), taken back by `replayer.take(kind, key)`. */
  z.object({ k: z.literal('note'), kind: z.string(), key: z.string(), value: JsonValueSchema }).strict(),
  /** A Task the bus carried, the `n`th (from 0): the Task log a replay must reproduce. */
  z.object({ k: z.literal('task'), n: z.number().int().nonnegative(), task: RecordedTaskSchema }).strict(),
  /** The program began the runtime's shutdown after `at` Tasks. */
  z.object({ k: z.literal('shutdown'), at: z.number().int().nonnegative() }).strict(),
  /** The recording stopped at its size limit: what follows it in the run was not recorded. */
  z.object({ k: z.literal('limit'), maxBytes: z.number().int() }).strict(),
  /** The run ended with `tasks` Tasks on the bus. */
  z.object({ k: z.literal('end'), tasks: z.number().int().nonnegative() }).strict(),
]);

export type RunRecord = z.infer<typeof RecordSchema>;
