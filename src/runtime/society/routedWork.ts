import type { AgentRecord } from '../../org/index.js';
import type { RoutingDecision } from '../../routing/index.js';
import type { RoutedWork, WorkRequest } from '../../tools/index.js';
import type { WorkRouter } from './workRouter.js';

/** What routing work needs of the society: its agents, who is busy, and spawning. */
export interface WorkPlacement {
  readonly router: WorkRouter;
  /** Agent records in memory (the live ones among them). */
  readonly agents: () => Iterable<AgentRecord>;
  /** Live and not being terminated: may take new work. */
  readonly isActive: (agentId: string) => boolean;
  readonly isBusy: (agentId: string) => boolean;
  readonly spawn: (input: { role: string; parent: string; parentTask: WorkRequest['parentTask']; call?: WorkRequest['call'] }) => Promise<{ agentId: string }>;
}

/**
 * The router's choice of role, then an agent of it: one that is live, idle and not the caller
 * (the caller's own children before any other), else a new child of the caller. Finding an idle
 * agent reads every agent record in memory once: a delegation costs O(agents), as spawning does.
 */
export async function routeWork(request: WorkRequest, placement: WorkPlacement): Promise<RoutedWork> {
  const decision = await placement.router.decide(request.request, request.signal);
  const json = asJson(decision);
  const at = `${decision.score} ${decision.chosen === null ? '<' : '≥'} ${decision.threshold}`;
  if (decision.chosen === null) {
    const best = decision.candidates[0];
    const summary = `${decision.method} → nowhere: ${best === undefined ? 'no candidates' : `best ${best.name} ${at}`}`;
    return { agentId: null, role: null, spawned: false, reason: decision.reason, summary, decision: json };
  }
  const role = decision.chosen;
  const idle = idleAgent(role.id, request.from, placement);
  if (idle !== undefined) {
    const summary = `${decision.method} → ${idle}: ${role.name} ${at}, reused`;
    return { agentId: idle, role: role.name, spawned: false, reason: `${decision.reason}; reusing idle agent ${idle}`, summary, decision: json };
  }
  const call = request.call === undefined ? {} : { call: request.call };
  const spawned = await placement.spawn({ role: role.id, parent: request.from, parentTask: request.parentTask, ...call });
  const summary = `${decision.method} → ${spawned.agentId}: ${role.name} ${at}, spawned`;
  return { agentId: spawned.agentId, role: role.name, spawned: true, reason: `${decision.reason}; spawned ${spawned.agentId}`, summary, decision: json };
}

function idleAgent(roleId: string, caller: string, placement: WorkPlacement): string | undefined {
  let other: string | undefined;
  for (const agent of placement.agents()) {
    if (agent.roleId !== roleId || agent.id === caller || agent.status !== 'active') continue;
    if (!placement.isActive(agent.id) || placement.isBusy(agent.id)) continue;
    if (agent.parentAgentId === caller) return agent.id;
    other ??= agent.id;
  }
  return other;
}

/** The decision as the plain JSON record a Task's metadata holds. */
function asJson(decision: RoutingDecision): RoutedWork['decision'] {
  return {
    ...decision,
    chosen: decision.chosen === null ? null : { ...decision.chosen },
    candidates: decision.candidates.map((candidate) => ({ ...candidate })),
  };
}
