import { z } from 'zod';
import { ErrorCodeSchema } from '../errors.js';

/** Agent ids travel in NATS subjects and URLs, so they are restricted to a safe alphabet. */
export const AgentIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"');

export const TaskIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1–128 letters, digits, "_" or "-"');

/** A Task named by its id and session: what a notice, a spawn or a stop is about. */
export const TaskRefSchema = z.object({ id: TaskIdSchema, sessionId: TaskIdSchema }).strict();
export type TaskRef = z.infer<typeof TaskRefSchema>;

/** Only the id and session of `task` (a whole Task may be any size; a reference goes on the wire and in machine context). */
export function refTo(task: TaskRef | null | undefined): TaskRef | null {
  return task === null || task === undefined ? null : { id: task.id, sessionId: task.sessionId };
}

/** Dotted lower-case names: `execute`, `node.message`, `agent.spawned`. */
const ActionSchema = z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/, 'must be dotted lower-case words like "node.message"');

/** The A2A task states. */
export const TaskStatusSchema = z.enum(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected']);

export const TaskErrorSchema = z
  .object({
    /** One of `errorCodes`: a Task with a code this troupe does not know is refused, naming this field. */
    code: ErrorCodeSchema,
    message: z.string(),
  })
  // Strict like the Task itself: an unknown key is rejected, not silently dropped.
  .strict();

/** Any JSON value; one schema, so the OpenAPI document names it once (`JsonValue`). */
export const JsonValueSchema = z.json();

/** Tokens a turn's model calls used, as their provider reported them. */
export const TaskUsageSchema = z
  .object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
  })
  .strict();

export const TaskMetadataSchema = z
  .object({
    /** How much this Task matters to memory, 0..1 (L2 keeps what is above 0.6). */
    importance: z.number().min(0).max(1).optional(),
    /** On an agent's answer: the tokens the turn that wrote it used (its model calls', when the provider reported them). */
    usage: TaskUsageSchema.optional(),
  })
  .catchall(JsonValueSchema);

export const TaskSchema = z
  .object({
    id: TaskIdSchema,
    /** Tasks of one conversation with the user share a session; memory and context filter by it. */
    sessionId: TaskIdSchema,
    /** The Task this one was made for (a sub-task, a reply's request), or null at the top. */
    parentId: TaskIdSchema.nullable(),
    from: AgentIdSchema,
    to: AgentIdSchema,
    action: ActionSchema,
    status: TaskStatusSchema,
    parameters: z.record(z.string(), JsonValueSchema),
    result: JsonValueSchema.nullable(),
    error: TaskErrorSchema.nullable(),
    metadata: TaskMetadataSchema,
    /** Milliseconds since the epoch. */
    createdAt: z.number().int().nonnegative(),
  })
  .strict();

export type AgentId = z.infer<typeof AgentIdSchema>;
export type TaskStatus = z.infer<typeof TaskStatusSchema>;
export type TaskError = z.infer<typeof TaskErrorSchema>;
export type TaskMetadata = z.infer<typeof TaskMetadataSchema>;
export type TaskUsage = z.infer<typeof TaskUsageSchema>;
export type JsonValue = z.infer<typeof JsonValueSchema>;

/** A Task is an immutable value: every Task troupe hands out is deeply frozen. */
export type Task = Readonly<z.infer<typeof TaskSchema>>;

/** Statuses after which a Task needs nothing more from its receiver. */
export const finalStatuses: ReadonlySet<TaskStatus> = new Set(['completed', 'canceled', 'failed', 'rejected']);

/** A reply ends a request when it is final or asks the requester for input. */
export function isReplyStatus(status: TaskStatus): boolean {
  return finalStatuses.has(status) || status === 'input-required';
}
