import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { type ApprovalDecision, ApprovalDecisionSchema, ApprovalIdSchema, type ApprovalNotice, formatPath } from '../task/index.js';

/** The data part of a follow-up message that decides a call: `{ approval?, action, message?, arguments?, digest? }`. */
const ApprovalReplySchema = z.object({ approval: ApprovalIdSchema.optional() }).catchall(z.unknown());

/** A decision a client's message carries, with the approval it is for. */
export interface ApprovalReply {
  readonly approval: string;
  readonly decision: ApprovalDecision;
}

/**
 * The decisions a client's follow-up to a task paused for approval carries: one data part per
 * call, `{ approval: 'ap-…', action: 'approve' | 'reject' | 'edit', message?, arguments?, digest? }`
 * (the decision of `POST /api/approvals/:id`, plus the approval's id; the id may be left out when
 * a single call waits). Anything else is refused (a ValidationError naming the part and field): a decision is never guessed.
 */
export function approvalReplies(data: readonly unknown[], waiting: readonly ApprovalNotice[]): ApprovalReply[] {
  if (data.length === 0) {
    const ids = waiting.map((notice) => notice.id).join(', ');
    throw new ValidationError(
      'parts',
      `the task waits for a person to approve ${ids}: reply with a data part { approval, action: "approve" | "reject" | "edit" } per call`,
    );
  }
  return data.map((value, index) => {
    const field = (path: readonly PropertyKey[]): string => formatPath([`parts[${index}]`, ...path]);
    const head = ApprovalReplySchema.safeParse(value);
    if (!head.success) throw new ValidationError(field(head.error.issues[0]?.path ?? []), head.error.issues[0]?.message ?? 'invalid');
    const { approval, ...rest } = head.data;
    const decision = ApprovalDecisionSchema.safeParse({ by: 'a2a', ...rest });
    if (!decision.success) {
      const issue = decision.error.issues[0];
      throw new ValidationError(field(issue?.path ?? []), issue?.message ?? 'invalid');
    }
    const id = approval ?? (waiting.length === 1 ? waiting[0]?.id : undefined);
    if (id === undefined) throw new ValidationError(field(['approval']), `name the approval: ${waiting.length} calls wait`);
    return { approval: id, decision: decision.data };
  });
}
