import type { FastifyInstance } from 'fastify';
import type { AnyStateMachine } from 'xstate';
import { agentMachine } from '../../machines/index.js';
import { responseSchema } from './responseSchema.js';
import { type MachineDefinition, MachineDefinitionSchema } from './schemas.js';

/** A state node as xstate's `toJSON()` writes it: the parts a drawing needs. */
interface StateNodeJson {
  readonly key: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly initial?: { readonly target?: readonly string[] };
  readonly states?: Readonly<Record<string, StateNodeJson>>;
  readonly on?: Readonly<Record<string, readonly { readonly target?: readonly string[]; readonly guard?: unknown }[]>>;
}

/** `#agent.running.turn` → `running.turn`: paths relative to the machine, as an agent's `state` names them. */
const relative = (machineId: string, target: string): string => target.replace(new RegExp(`^#${machineId}\\.?`), '');

const guardName = (guard: unknown): string | null => {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') return guard.type;
  return guard === undefined ? null : 'guard';
};

/**
 * A machine's states and transitions, flat (every state by its dotted path, its parent's path
 * and its initial child's), so a client draws it without following xstate's nesting, and the
 * OpenAPI document needs no recursive schema.
 */
function definitionOf(machine: AnyStateMachine): MachineDefinition {
  // Through JSON: `toJSON` leaves targets as state nodes, which their own `toJSON` writes as `#id` paths.
  const json = JSON.parse(JSON.stringify(machine.toJSON())) as StateNodeJson & { readonly id: string };
  const states: MachineDefinition['states'] = [];
  const transitions: MachineDefinition['transitions'] = [];
  const visit = (node: StateNodeJson, path: string, parent: string | null): void => {
    const initialTarget = node.initial?.target?.[0];
    const initial = initialTarget === undefined ? null : relative(json.id, initialTarget);
    if (path !== '') states.push({ path, type: node.type, parent, initial });
    for (const [event, candidates] of Object.entries(node.on ?? {})) {
      for (const candidate of candidates) {
        transitions.push({
          source: path,
          event,
          targets: (candidate.target ?? []).map((target) => relative(json.id, target)),
          guard: guardName(candidate.guard),
        });
      }
    }
    for (const [key, child] of Object.entries(node.states ?? {})) visit(child, path === '' ? key : `${path}.${key}`, path === '' ? null : path);
  };
  visit(json, '', null);
  const initial = json.initial?.target?.[0];
  return { machine: json.id, initial: initial === undefined ? null : relative(json.id, initial), states, transitions };
}

const definitionReply = responseSchema(MachineDefinitionSchema);

/**
 * `GET /api/machines/agent`: the agent machine's statechart (what the dashboard draws, lighting
 * an agent's `state`). Made once: a definition does not change while the server runs.
 */
export function registerMachineRoute(app: FastifyInstance): void {
  const agent = definitionOf(agentMachine);
  app.get('/api/machines/agent', { schema: { response: { 200: definitionReply } } }, async () => agent);
}
