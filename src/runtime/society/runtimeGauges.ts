import { type AgentState, agentStates } from '../agent/agentState.js';
import type { ApprovalDesk } from '../approvals/approvalDesk.js';
import type { ModelCallLimiter } from '../limits/modelCallLimiter.js';
import type { MemoryHub } from '../memory/memoryHub.js';
import type { Society } from './society.js';

/** The memory tiers counted (`troupe_memory_entries{tier}`), as `rt.memory` names them. */
type MemoryTier = 'l1' | 'l2' | 'l3' | 'l4';

/**
 * What a runtime is doing right now, as numbers (what `/metrics` reports as gauges). Read from the
 * runtime's own state when asked, so nothing is counted while nobody looks.
 */
export interface RuntimeGauges {
  /** Live agents (here, on nodes, and restored ones not started yet) by state; every state present, zeros included. */
  readonly agents: Readonly<Record<AgentState, number>>;
  /** Tasks waiting in the mailboxes of the agents running here, in all, and in the fullest one. */
  readonly mailbox: { readonly tasks: number; readonly maxTasks: number };
  /** Turns in progress (one lane per session an agent serves) across the agents running here. */
  readonly lanes: number;
  /** Model calls holding a slot of the call limiter, and those waiting for one. */
  readonly modelCalls: { readonly running: number; readonly queued: number };
  /** Tool calls waiting for a person's decision. */
  readonly approvalsPending: number;
  /** Open agent memories and the entries they hold, by tier (L4: facts). */
  readonly memory: { readonly open: number; readonly entries: Readonly<Record<MemoryTier, number>> };
  /** Open graph memories (agents' and the society's) and their nodes and edges. */
  readonly graphs: { readonly open: number; readonly nodes: number; readonly edges: number };
}

/** What the gauges are read from. */
export interface GaugeSources {
  readonly society: Society;
  readonly limiter: Pick<ModelCallLimiter, 'running' | 'queued'>;
  readonly approvals: Pick<ApprovalDesk, 'pendingCount'>;
  readonly memory: MemoryHub;
}

/**
 * The gauges of a runtime now: the agents at rest are counted, only the others are read (see
 * `LiveAgents.forGauges`), then one pass over the open memories.
 */
export function runtimeGauges({ society, limiter, approvals, memory }: GaugeSources): RuntimeGauges {
  const agents = Object.fromEntries(agentStates.map((state) => [state, 0])) as Record<AgentState, number>;
  let tasks = 0;
  let maxTasks = 0;
  let lanes = 0;
  const { atRest, stirring, remote } = society.forGauges();
  agents['running.idle'] = atRest;
  for (const agent of stirring) {
    agents[agent.state] += 1;
    const queued = agent.queued;
    tasks += queued;
    if (queued > maxTasks) maxTasks = queued;
    lanes += agent.lanes;
  }
  // Hosted on nodes: their mailboxes and lanes are their nodes' to report.
  for (const agent of remote) agents[agent.state] += 1;
  agents.restoring += society.restoring.size;
  return {
    agents,
    mailbox: { tasks, maxTasks },
    lanes,
    modelCalls: { running: limiter.running, queued: limiter.queued },
    approvalsPending: approvals.pendingCount(),
    memory: memoryEntries(memory),
    graphs: memory.graphs.sizes(),
  };
}

function memoryEntries(hub: MemoryHub): RuntimeGauges['memory'] {
  const entries: Record<MemoryTier, number> = { l1: 0, l2: 0, l3: 0, l4: 0 };
  let open = 0;
  for (const memory of hub.live()) {
    const counts = memory.counts();
    open += 1;
    entries.l1 += counts.l1;
    entries.l2 += counts.l2;
    entries.l3 += counts.l3;
    entries.l4 += counts.l4;
  }
  return { open, entries };
}
