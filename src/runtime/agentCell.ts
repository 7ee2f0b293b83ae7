import type { Subscription } from 'rxjs';
import type { Actor } from 'xstate';
import type { agentMachine } from '../../machines/agent.machine.js';
import type { ToolCall } from '../llm/index.js';
import type { Conversation } from './conversation.js';
import type { Role } from './roleBook.js';

export type AgentStatus = 'active' | 'terminated';

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
  inbox: Subscription | undefined;
}
