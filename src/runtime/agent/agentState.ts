import type { SnapshotFrom } from 'xstate';
import type { agentMachine } from '../../../machines/agent.machine.js';

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

/** `{ running: 'turn' }` → `'running.turn'`, for every state value a machine can be in. */
type StatePath<V> = V extends string ? V : V extends object ? { [K in keyof V & string]: `${K}.${StatePath<V[K]>}` }[keyof V & string] : never;

/**
 * Where an agent is in its lifecycle: `spawning`; `running.idle` with no turn in progress;
 * `running.turn.thinking` while any of its lanes (one turn per session) waits on the model,
 * `running.turn.acting` while every lane runs tools; `draining` while it finishes its lanes and
 * mailbox with intake closed (whatever its turns are doing); `stopping`; `terminated` once gone;
 * `restoring` after a restart, until the background restore (or a Task for it) starts its actor;
 * `remote` while another node of the society hosts it, `unreachable` while that node is silent.
 * How many lanes it has is `AgentView.lanes`.
 */
export type AgentState =
  | Exclude<StatePath<AgentSnapshot['value']>, 'running.turn'>
  | `running.turn.${'thinking' | 'acting'}`
  | 'draining'
  | 'terminated'
  | 'restoring'
  | 'remote'
  | 'unreachable';

/** The lifecycle state of a snapshot, as `AgentState` spells it. */
export function agentStateOf(snapshot: AgentSnapshot): AgentState {
  if (snapshot.status === 'done') return 'terminated';
  // Draining is running (or spawning) with intake closed, so the turns in progress are not interrupted.
  if (snapshot.context.draining && snapshot.value !== 'stopping') return 'draining';
  const { value } = snapshot;
  if (typeof value === 'string') return value;
  if (value.running === 'idle') return 'running.idle';
  // Read from the lanes' phases only when asked, so a step of a turn costs no state change for it.
  return snapshot.context.lanes.some((lane) => lane.phase === 'thinking') ? 'running.turn.thinking' : 'running.turn.acting';
}
