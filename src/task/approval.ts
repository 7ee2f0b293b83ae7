import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonicalJson.js';
import { JsonValueSchema, type Task, isReplyStatus } from './schema.js';

/** An approval's id: derived from its Task and tool call, so a restarted turn finds the one its call paused on. */
export const ApprovalIdSchema = z.string().regex(/^ap-[0-9a-f]{24}$/, 'must be an approval id (ap- and 24 hex digits)');

/** The digest of a call's arguments: what a decision names to say which arguments it was made on. */
const ArgumentsDigestSchema = z.string().regex(/^[0-9a-f]{64}$/, "must be the 64 hex digits of the approval's digest");

/** Who decided, as the deciding door names them (a user name, `cli`, `http`); shown, never trusted. */
const DeciderSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^\P{Cc}+$/u, 'must have no control characters');

/**
 * A person's decision on a tool call waiting for approval: run it (`approve`), run it with other
 * arguments (`edit`, checked against the tool's schema), or not at all (`reject`, with a message
 * the model reads). `digest`, when given, must be the waiting call's: a decision made on other
 * arguments is refused.
 */
export const ApprovalDecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('approve'), digest: ArgumentsDigestSchema.optional(), by: DeciderSchema.optional() }).strict(),
  z
    .object({ action: z.literal('reject'), message: z.string().max(4_000).optional(), digest: ArgumentsDigestSchema.optional(), by: DeciderSchema.optional() })
    .strict(),
  z
    .object({
      action: z.literal('edit'),
      arguments: z.record(z.string(), JsonValueSchema),
      digest: ArgumentsDigestSchema.optional(),
      by: DeciderSchema.optional(),
    })
    .strict(),
]);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;
export type ApprovalDecisionInput = z.input<typeof ApprovalDecisionSchema>;

/**
 * Where an approval is: waiting for a person (`pending`); decided (`approved`, its arguments
 * perhaps edited; `rejected`; `expired`, rejected for want of a decision); or `started`, an
 * approved call the turn has begun to run (after a crash it is not run again).
 */
const ApprovalStatusSchema = z.enum(['pending', 'approved', 'rejected', 'expired', 'started']);

/** Why a call waits: its tool asks (`tool`), the role's policy does (`policy`), or it is an MCP tool not known to be read-only (`mcp`). */
export const ApprovalReasonSchema = z.enum(['tool', 'policy', 'mcp']);

/** The tool's annotations as they stood when the call paused, shown to whoever decides. */
const AnnotationsShownSchema = z.object({ readOnly: z.boolean(), destructive: z.boolean(), idempotent: z.boolean(), openWorld: z.boolean() }).strict();

/** A decision as kept: what was decided, when and by whom; an edit's arguments as the JSON the tool is run with. */
const DecisionKeptSchema = z
  .object({
    action: z.enum(['approve', 'reject', 'edit']),
    at: z.number().int().nonnegative(),
    by: z.string().max(128).optional(),
    message: z.string().max(4_000).optional(),
    arguments: z.string().optional(),
  })
  .strict();

/**
 * A tool call that needed a person's approval, as the runtime keeps it (in the org store with a
 * data dir): which call of which Task, its arguments and their digest, why it waits, when it
 * expires, and the decision. The policy's verdict is kept with it: once a call has paused, a
 * change of policy or a restart never lets it run without a decision.
 */
export const ApprovalSchema = z
  .object({
    v: z.literal(1),
    id: ApprovalIdSchema,
    agentId: z.string().min(1),
    role: z.string(),
    taskId: z.string().min(1),
    sessionId: z.string().min(1),
    toolCallId: z.string().min(1),
    tool: z.string().min(1),
    /** The arguments as the model wrote them (JSON). */
    arguments: z.string(),
    digest: ArgumentsDigestSchema,
    annotations: AnnotationsShownSchema,
    reason: ApprovalReasonSchema,
    requestedAt: z.number().int().nonnegative(),
    expiresAt: z.number().int().nonnegative(),
    status: ApprovalStatusSchema,
    decision: DecisionKeptSchema.nullable(),
  })
  .strict();
export type Approval = Readonly<z.infer<typeof ApprovalSchema>>;

/**
 * The id of the approval of a tool call in Task `taskId`: of its call id, tool and arguments'
 * digest, so a model that gives two calls one id never has one decision taken for the other.
 */
export function approvalIdOf(taskId: string, call: { readonly id: string; readonly name: string; readonly arguments: string }): string {
  const key = [taskId, call.id, call.name, argumentsDigest(call.arguments)].join('\u0000');
  return `ap-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** The digest of a call's arguments (JSON text): equal for equal values whatever their key order or spacing. */
export function argumentsDigest(argumentsJson: string): string {
  let canonical: string;
  try {
    canonical = canonicalJson(JSON.parse(argumentsJson) as unknown);
  } catch {
    canonical = argumentsJson;
  }
  return createHash('sha256').update(canonical).digest('hex');
}

/** What a Task's `input-required` update names of each call it waits on (in `metadata.approvals`). */
export interface ApprovalNotice {
  readonly id: string;
  readonly tool: string;
  readonly toolCallId: string;
  readonly digest: string;
}

/**
 * Whether `task` is a turn pausing for a person's approval (an `input-required` update naming the
 * calls it waits on) rather than a reply: the Task goes on once they are decided, so whoever
 * waits for its answer keeps waiting.
 */
export function awaitsApproval(task: Pick<Task, 'status' | 'metadata'>): boolean {
  return task.status === 'input-required' && Array.isArray(task.metadata['approvals']);
}

/** Whether `task` ends the request it answers: a final status, or `input-required` asking the requester for input (not a pause for approval). */
export function isReply(task: Pick<Task, 'status' | 'metadata'>): boolean {
  return isReplyStatus(task.status) && !awaitsApproval(task);
}
