import type { Subscription } from 'rxjs';
import type { Actor } from 'xstate';
import type { agentMachine } from '../../machines/agent.machine.js';
import type { ToolCall } from '../llm/index.js';
import type { Conversation } from './conversation.js';
import type { Role } from './roleBook.js';

export type AgentStatus = 'active' | 'terminated';

/** Model calls made and tokens used, as reported by the provider. */
export interface ModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** An agent as the organisation records it. */
export interface AgentRecord {
  readonly id: string;
  readonly roleId: string;
  readonly parentAgentId: string | null;
  readonly createdAt: number;
  readonly terminatedAt: number | null;
  readonly status: AgentStatus;
}

export interface Termination {
  readonly agentId: string;
  readonly terminatedBy: string;
  readonly at: number;
  readonly reason: string;
}

/** Everything the runtime holds for one live agent. */
export interface AgentCell {
  readonly role: Role;
  readonly conversation: Conversation;
  readonly actor: Actor<typeof agentMachine>;
  /** Tool calls the last model reply asked for, run by the next `act`. */
  pendingCalls: readonly ToolCall[];
  /** How often each (tool, arguments) was called in the current turn, for the repeat guard. */
  readonly turnCalls: Map<string, number>;
  /** Model calls and tokens this agent has used (kept by the society after it terminates). */
  readonly usage: ModelUsage;
  inbox: Subscription | undefined;
}
