import { type ApprovalReasonSchema, type ToolCall, type ToolPolicy, namesTool } from '../../task/index.js';
import type { z } from 'zod';
import { type ApprovalContext, type Tool, toolAnnotations } from '../../tools/index.js';

type ApprovalReason = z.infer<typeof ApprovalReasonSchema>;

/** Whether a trusted MCP server says its tool only reads: untrusted servers' annotations are hints, never relied on. */
function readOnlyMcp(tool: Tool): boolean {
  return toolAnnotations(tool).readOnly;
}

/**
 * Why `call` must wait for a person's approval, or null when it may run: the role's policy first
 * (`skip` runs it unasked, `require` asks), then the tool itself (`needsApproval`, true or a
 * function of the checked arguments), then MCP's rule that a person can deny a server's tool
 * calls (every MCP tool but a trusted server's read-only ones). A `needsApproval` function that
 * throws asks: an approval never fails open. A call that will not run at all (no such tool,
 * arguments the schema refuses) needs none.
 */
export async function approvalReason(
  tool: Tool | undefined,
  call: ToolCall,
  policy: ToolPolicy | undefined,
  context: ApprovalContext,
): Promise<ApprovalReason | null> {
  if (tool === undefined) return null;
  const rules = policy?.approvals;
  if (namesTool(rules?.skip, tool.name)) return null;
  if (namesTool(rules?.require, tool.name)) return 'policy';
  const { needsApproval } = tool;
  if (needsApproval === true) return 'tool';
  if (typeof needsApproval === 'function') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.arguments);
    } catch {
      return null;
    }
    const checked = tool.parameters.safeParse(parsed);
    if (!checked.success) return null;
    try {
      return (await needsApproval(checked.data, context)) ? 'tool' : null;
    } catch {
      return 'tool';
    }
  }
  if (needsApproval === false) return null;
  return tool.source?.startsWith('mcp:') === true && !readOnlyMcp(tool) ? 'mcp' : null;
}
