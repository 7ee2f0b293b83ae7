import type { SnapshotFrom } from 'xstate';
import type { agentMachine } from '../../../machines/agent.machine.js';

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

/**
 * Where an agent is in its lifecycle: `spawning`; `running.idle` with no turn in progress;
 * `running.turn.thinking` while any of its lanes (one turn per session) waits on the model,
 * `running.turn.acting` while every lane runs tools (or waits for approval while another works);
 * `running.awaitingApproval` while every lane is paused for a person's decision; `draining` while it finishes its lanes and
 * mailbox with intake closed (whatever its turns are doing, and from the moment a drain is asked
 * for, even while spawning); `stopping`; `terminated` once gone; `restoring` after a restart,
 * until the background restore (or a Task for it) starts its actor; `remote` while another node
 * of the society hosts it, `unreachable` while that node is silent. How many lanes it has is
 * `AgentView.lanes`.
 */
export type AgentState = (typeof agentStates)[number];

/** Every `AgentState`, in lifecycle order: what a gauge of agents by state reports, zeros included. */
export const agentStates = [
  'spawning',
  'running.idle',
  'running.turn.thinking',
  'running.turn.acting',
  'running.awaitingApproval',
  'draining',
  'stopping',
  'terminated',
  'restoring',
  'remote',
  'unreachable',
] as const;

/** The lifecycle state of a snapshot, as `AgentState` spells it. */
export function agentStateOf(snapshot: AgentSnapshot): AgentState {
  if (snapshot.status === 'done') return 'terminated';
  const { value } = snapshot;
  if (typeof value === 'string') return value;
  // A drain asked for while spawning has closed intake already: the agent drains as soon as it is ready.
  if ('spawning' in value) return value.spawning === 'thenDrain' ? 'draining' : 'spawning';
  if ('draining' in value) return 'draining';
  if (value.running === 'idle') return 'running.idle';
  if (value.running === 'awaitingApproval') return 'running.awaitingApproval';
  // Read from the lanes' phases only when asked, so a step of a turn costs no state change for it.
  return snapshot.context.lanes.some((lane) => lane.phase === 'thinking') ? 'running.turn.thinking' : 'running.turn.acting';
}

/** Live and taking new work (and children): spawning or running, no drain asked for, not stopping. */
export function takesWork(snapshot: AgentSnapshot): boolean {
  return snapshot.status === 'active' && (snapshot.matches({ spawning: 'thenRun' }) || snapshot.matches('running'));
}

/** Live and not stopping, so it still runs turns: a draining agent does. */
export function runsTurns(snapshot: AgentSnapshot): boolean {
  return snapshot.status === 'active' && snapshot.value !== 'stopping';
}

/** No turn in progress (running or draining) and nothing queued: the agent waits for work, or for its stop once drained. */
export function isIdle(snapshot: AgentSnapshot): boolean {
  const { value } = snapshot;
  if (typeof value === 'string' || snapshot.context.mailbox.length > 0) return false;
  return ('running' in value && value.running === 'idle') || ('draining' in value && value.draining === 'idle');
}

/** Running, idle, nothing queued: `running.idle` with no lane and an empty mailbox, what most agents of a large society are most of the time. */
export function isAtRest(snapshot: AgentSnapshot): boolean {
  const { value } = snapshot;
  return snapshot.status === 'active' && typeof value !== 'string' && 'running' in value && value.running === 'idle' && snapshot.context.mailbox.length === 0;
}
