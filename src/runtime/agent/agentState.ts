import type { SnapshotFrom } from 'xstate';
import type { agentMachine } from '../../../machines/agent.machine.js';

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

/** `{ running: { turn: 'thinking' } }` → `'running.turn.thinking'`, for every state value a machine can be in. */
type StatePath<V> = V extends string ? V : V extends object ? { [K in keyof V & string]: `${K}.${StatePath<V[K]>}` }[keyof V & string] : never;

/**
 * Where an agent is in its lifecycle, e.g. `running.turn.thinking`; `draining` while it works
 * through its mailbox with intake closed (whatever its turn is doing); `terminated` once gone;
 * `restoring` after a restart, until the background restore (or a Task for it) starts its actor.
 */
export type AgentState = StatePath<AgentSnapshot['value']> | 'draining' | 'terminated' | 'restoring';

/** The lifecycle state of a snapshot, as `AgentState` spells it. */
export function agentStateOf(snapshot: AgentSnapshot): AgentState {
  if (snapshot.status === 'done') return 'terminated';
  // Draining is running (or spawning) with intake closed, so the turn in progress is not interrupted.
  if (snapshot.context.draining && snapshot.value !== 'stopping') return 'draining';
  return dotted(snapshot.value) as AgentState;
}

function dotted(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [key, inner] = Object.entries(value)[0] ?? [];
    return key === undefined ? '' : `${key}.${dotted(inner)}`;
  }
  return String(value);
}
