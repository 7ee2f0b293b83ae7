import type { SnapshotFrom } from 'xstate';
import type { agentMachine } from '../../../machines/agent.machine.js';

/** `{ running: { turn: 'thinking' } }` → `'running.turn.thinking'`, for every state value a machine can be in. */
type StatePath<V> = V extends string ? V : V extends object ? { [K in keyof V & string]: `${K}.${StatePath<V[K]>}` }[keyof V & string] : never;

/** Where an agent is in its lifecycle, e.g. `running.turn.thinking`; `terminated` once gone. */
export type AgentState = StatePath<SnapshotFrom<typeof agentMachine>['value']>;

/** The dotted name of a state value, as `AgentState` spells it. */
export function stateName(value: SnapshotFrom<typeof agentMachine>['value']): AgentState {
  return dotted(value) as AgentState;
}

function dotted(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [key, inner] = Object.entries(value)[0] ?? [];
    return key === undefined ? '' : `${key}.${dotted(inner)}`;
  }
  return String(value);
}
