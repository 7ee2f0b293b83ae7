import type { Approval } from '../task/index.js';
import { dateTime } from './timeFormat.js';

/** Why a call waits, in words. */
const reasons: Readonly<Record<Approval['reason'], string>> = {
  tool: 'its tool asks for approval',
  policy: "the role's policy requires approval",
  mcp: 'an MCP tool not known to be read-only',
};

/** The annotations that hold, in words (`none` when none does). */
function annotationWords(annotations: Approval['annotations']): string {
  const words = [
    annotations.readOnly ? 'read-only' : undefined,
    annotations.destructive ? 'destructive' : undefined,
    annotations.idempotent ? 'idempotent' : undefined,
    annotations.openWorld ? 'open world' : undefined,
  ].filter((word) => word !== undefined);
  return words.length === 0 ? 'none' : words.join(', ');
}

/**
 * An approval as a person reads it before deciding (`troupe approvals`, `troupe run`'s question):
 * who asks to run which tool with which arguments (shown as given: redact them first), why it
 * waits, what the tool's annotations say, and until when.
 */
export function describeApproval(approval: Approval): string[] {
  return [
    `${approval.id}  ${approval.agentId} asks to run ${approval.tool}`,
    `  arguments: ${approval.arguments}`,
    `  why: ${reasons[approval.reason]}; annotations: ${annotationWords(approval.annotations)}`,
    `  task ${approval.taskId}, session ${approval.sessionId}; expires ${dateTime(approval.expiresAt)}; digest ${approval.digest}`,
  ];
}
