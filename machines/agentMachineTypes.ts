import type { Task, TaskRef, TaskUsage } from '../src/task/schema.js';
import type { ApprovalNotice } from '../src/task/approval.js';
import type { HandoffDecision } from '../src/task/handoff.js';
import type { Lane, ResumeAt } from './agentLanes.js';

// The agent machine's input, context and events (agent.machine.ts), apart from the machine so it reads as a chart.

/** What an agent starts with; the organisation tree is data (`parentId`), not XState's actor tree. */
export interface AgentInput {
  readonly agentId: string;
  readonly roleId: string;
  readonly parentId: string | null;
  /** Model calls allowed in one turn before it is stopped. */
  readonly maxSteps: number;
  /** Tasks that may wait in the mailbox; more are refused (`mailbox_full`) so a flood cannot stall the agent. */
  readonly mailboxLimit: number;
  /** Sessions whose turns run at once (lanes); the Tasks of other sessions wait in the mailbox. */
  readonly maxLanes: number;
  /**
   * After a restart: the Tasks whose turns were interrupted (at most one per session) and the
   * step each had reached, so each picks up where it stopped instead of starting over.
   */
  readonly resume?: readonly ResumeAt[];
}

export interface AgentContext extends AgentInput {
  /** Tasks waiting for a lane, in arrival order. */
  readonly mailbox: readonly Task[];
  /** The turns in progress, one per session, oldest first; each has a turn actor `turn:<sessionId>`. */
  readonly lanes: readonly Lane[];
  /** Interrupted turns still to be resumed: each leaves the list when its Task starts a lane. */
  readonly resume: readonly ResumeAt[];
  /**
   * Set when told to stop: the agent is only stopped for a shutdown of a runtime whose
   * organisation is kept, so its work is handed back on restart instead of being cancelled.
   */
  readonly resumable: boolean;
  /**
   * Set when told to stop: the Task of the turn that asked for it (a parent's `terminate_agent`),
   * whose session the `agent.terminated` notice joins; null when no turn asked (the user, a shutdown).
   */
  readonly stoppedFor: TaskRef | null;
}

/** What one model call decided: call tools, or answer (the runtime's turn loop uses it). */
export type ThinkOutput =
  | { readonly kind: 'tools'; readonly calls: number }
  /** `importance` (0..1) comes from an `<imp:X/>` tag the model wrote, already stripped from `text`. */
  | { readonly kind: 'answer'; readonly text: string; readonly importance?: number };

export interface TurnInput {
  readonly agentId: string;
  /** The Task of the turn; its `sessionId` names the lane. */
  readonly task: Task;
  /** Model calls already made in this turn (0 when it starts). */
  readonly step: number;
  /** The turn continues one interrupted by a restart: its prompt and steps so far are in its session's context. */
  readonly resuming: boolean;
}

/** What a lane's turn reports back to the machine, one event per phase change, naming its lane (`sessionId`). */
export type TurnEvent =
  /** The model asked for tools: thinking → acting. */
  | { type: 'turn.tools'; sessionId: string; calls: number }
  /** The tool results of `step` (0 for the turn's first model call) are in the context: acting → thinking (or the step limit). */
  | { type: 'turn.observed'; sessionId: string; step: number }
  /** A tool call of the step waits for a person's approval (`approvals`: every call of the step now waiting): acting → awaiting. */
  | { type: 'turn.awaiting'; sessionId: string; approvals: readonly ApprovalNotice[] }
  /** Every call of the step that waited for approval is decided: awaiting → acting. */
  | { type: 'turn.resumed'; sessionId: string }
  /** The model answered: the lane's turn is over. */
  /** `usage`: the tokens the turn's model calls used, when their provider reported any. */
  | { type: 'turn.answered'; sessionId: string; text: string; importance?: number; usage?: TaskUsage }
  /** A model call or tool step failed: the lane's turn is over, the agent lives on. */
  | { type: 'turn.failed'; sessionId: string; error: unknown }
  /** The model handed the conversation over (to an agent, or back to the user): the lane's turn is over. */
  | { type: 'turn.handedOff'; sessionId: string; handoff: HandoffDecision };

export type AgentEvent =
  /**
   * `accepted`: the Task was already accepted for this agent (the user's, checked against the
   * mailbox limit at intake, or handed back after a restart), so it is queued even past the limit.
   */
  | { type: 'task.received'; task: Task; accepted?: boolean }
  /** Close intake and work through the lanes and what is queued; the society sends `agent.terminate` once drained (or at the deadline). */
  | { type: 'agent.drain' }
  /** Stop now: every lane is stopped, what is left is cancelled (or kept for a restart when `resumable`) and the agent is released. */
  | { type: 'agent.terminate'; by: string; reason: string; resumable: boolean; about: TaskRef | null }
  /** Give up one Task (`by` canceled it, saying why): its lane's turn is stopped, or it leaves the mailbox; it is answered `canceled`. */
  | { type: 'task.cancel'; taskId: string; by: string; reason: string }
  | TurnEvent;
