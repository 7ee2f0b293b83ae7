import type { InspectionEvent } from 'xstate';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ModelClient, RetryPolicy } from '../llm/index.js';
import type { Tool, ToolPolicy } from '../tools/index.js';
import type { AgentRecord, ModelUsage } from './agentCell.js';
import type { RuntimeConfigInput } from './config.js';
import type { Society } from './society.js';

export interface RuntimeOptions extends RuntimeConfigInput {
  /** The model every agent uses; when absent, chosen from the environment (see `modelFromEnv`). */
  model?: ModelClient;
  /** Retry schedule for model calls (1, 2, 4 s by default), or false for none. */
  retry?: Partial<RetryPolicy> | false;
  bus?: EventBus;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** Tools added to the shared registry besides the meta-tools. */
  tools?: readonly Tool[];
  /** Receives XState inspection events of every actor (see `--inspect`). Off by default: it halves send speed. */
  inspect?: (event: InspectionEvent) => void;
  /**
   * Directory of the organisation store (LMDB). With it, roles, agents, terminations, every
   * Task's message log and the user's inbox are written durably, and a runtime created on the
   * same directory restores them. Absent: `TROUPE_DATA_DIR` if set; null or neither: memory only.
   */
  dataDir?: string | null;
  /** The root agent's role prompt and tool policy. */
  root?: { prompt?: string; tools?: ToolPolicy };
}

/** An agent as the runtime reports it. */
export interface AgentView extends AgentRecord {
  readonly roleName: string;
  /** The actor's state, e.g. `running.turn.thinking`; `terminated` once gone. */
  readonly state: string;
  readonly queued: number;
  readonly usage: ModelUsage;
}

export const rootPrompt = [
  'You are the root agent of a society of AI agents. The user gives you requirements.',
  'Break the work down: create roles (create_role), spawn child agents of those roles (spawn_agent),',
  'delegate sub-tasks and wait for their results (delegate_task), terminate children whose work is done',
  '(terminate_agent), then answer the user with the final result.',
].join(' ');

/** How `agentId`'s record reads with its live actor's state, queue and usage. */
export function agentView(society: Society, record: AgentRecord): AgentView {
  const snapshot = society.cell(record.id)?.actor.getSnapshot();
  return {
    ...record,
    roleName: society.roles.find(record.roleId)?.name ?? record.roleId,
    state: snapshot === undefined ? 'terminated' : stateName(snapshot.value),
    queued: snapshot?.context.mailbox.length ?? 0,
    usage: { ...(society.usageOf(record.id) ?? { calls: 0, promptTokens: 0, completionTokens: 0 }) },
  };
}

/** `{ running: { turn: 'thinking' } }` → `running.turn.thinking`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [key, inner] = Object.entries(value)[0] ?? [];
    return key === undefined ? '' : `${key}.${stateName(inner)}`;
  }
  return String(value);
}
