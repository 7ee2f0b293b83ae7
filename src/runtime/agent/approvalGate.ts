import { TroupeError } from '../../errors.js';
import type { Approval, ApprovalNotice, ReplyInit, Task, ToolCall } from '../../task/index.js';
import { type ToolResult, errorResult, toolAnnotations } from '../../tools/index.js';
import { approvalReason } from '../approvals/approvalRule.js';
import type { Agent } from './agent.js';

/** What the turn is told while a step's calls wait: which wait now (the lane pauses), and when none does (it goes on). */
export interface StepPause {
  waiting(approval: Approval): void;
  decided(id: string): void;
}

/** What the gate lets a call do: run (its arguments perhaps edited by the person), or be answered with `refused` instead. */
export type GateOutcome = { readonly run: ToolCall; readonly edited: boolean } | { readonly refused: ToolResult };

/** The notice of a waiting approval a paused Task names. */
export function noticeOf(approval: Approval): ApprovalNotice {
  return { id: approval.id, tool: approval.tool, toolCallId: approval.toolCallId, digest: approval.digest };
}

/** The `input-required` update of a Task paused for a person: the calls it waits on, by name and approval id. */
export function pausedForApproval(approvals: readonly ApprovalNotice[]): ReplyInit {
  const text = `waiting for a person to approve: ${approvals.map((approval) => `${approval.tool} (approval ${approval.id})`).join(', ')}`;
  const named = approvals.map(({ id, tool, toolCallId, digest }) => ({ id, tool, toolCallId, digest }));
  return { status: 'input-required', result: { text }, metadata: { approvals: named } };
}

/**
 * Lets `call` through once a person has approved it, when it needs approval. An approval asked
 * for before (this very call, before a restart) is taken as kept, with the policy's verdict of
 * then: a change of policy since never runs a call that waited. A rejected or expired call never
 * runs; an approved one is marked started, durably, before it runs, so one a crash interrupted
 * is not run a second time (unless its tool is read-only or idempotent).
 */
export async function passApproval(agent: Agent, task: Task, call: ToolCall, signal: AbortSignal, pause: StepPause): Promise<GateOutcome> {
  const { approvals: desk, tools } = agent.env;
  let approval = desk.of(task.id, call);
  const tool = tools.get(call.name);
  if (approval === undefined) {
    const context = { agentId: agent.id, role: agent.role.name, task };
    const reason = await approvalReason(tool, call, agent.toolPolicy(task.sessionId), context);
    if (reason === null || tool === undefined) return { run: call, edited: false };
    try {
      approval = await desk.request({
        agentId: agent.id,
        role: agent.role.name,
        taskId: task.id,
        sessionId: task.sessionId,
        toolCallId: call.id,
        tool: call.name,
        arguments: call.arguments,
        annotations: { ...toolAnnotations(tool) },
        reason,
      });
    } catch (error) {
      if (error instanceof TroupeError && error.code === 'approval_limit') return { refused: errorResult(`not run: ${error.message}`, 'approval_limit') };
      throw error;
    }
  }
  // Read again: a person may have decided already, from the desk's announcement of the request.
  approval = desk.get(approval.id) ?? approval;
  if (approval.status === 'pending') {
    const { id } = approval;
    pause.waiting(approval);
    try {
      approval = await desk.wait(id, signal);
    } finally {
      pause.decided(id);
    }
  }
  return outcomeOf(agent, call, approval);
}

async function outcomeOf(agent: Agent, call: ToolCall, approval: Approval): Promise<GateOutcome> {
  const { decision } = approval;
  switch (approval.status) {
    case 'pending':
    case 'rejected':
    case 'expired': {
      const why = decision?.message === undefined || decision.message === '' ? '' : `: ${decision.message}`;
      const who = approval.status === 'expired' ? 'it was not approved in time' : 'a person rejected it';
      return { refused: errorResult(`not run: ${who}${why}`, 'approval_rejected') };
    }
    case 'started': {
      const tool = agent.env.tools.get(call.name);
      const again = tool !== undefined && (toolAnnotations(tool).readOnly || toolAnnotations(tool).idempotent);
      if (!again) {
        return {
          refused: errorResult(
            'not run again: it was approved and had started when the runtime stopped, so it may have run; check its effect before calling it again',
            'tool_error',
          ),
        };
      }
      return { run: withArguments(call, decision?.arguments), edited: decision?.arguments !== undefined };
    }
    case 'approved':
      await agent.env.approvals.started(approval.id);
      return { run: withArguments(call, decision?.arguments), edited: decision?.arguments !== undefined };
  }
}

function withArguments(call: ToolCall, edited: string | undefined): ToolCall {
  return edited === undefined ? call : { ...call, arguments: edited };
}
