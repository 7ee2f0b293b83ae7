import { type StatePath, getAdjacencyMap, getShortestPaths, getStateNodes } from '@xstate/graph';
import {
  type ActorLogic,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyTransitionDefinition,
  type EventObject,
  type InspectionEvent,
  type StateValue,
  createActor,
} from 'xstate';
import { describe, expect, it } from 'vitest';
import { type Effect, RecordingImplementations, type Invocation, isSettlement, settled } from './recordingImplementations.js';

/** The pseudo-event of a path's first step: the actor starting. */
export interface InitEvent {
  readonly type: 'xstate.init';
}

export interface ExpectedEffects {
  readonly actions: readonly Effect[];
  readonly invoked: readonly Invocation[];
}

/** One step as the real actor took it. */
export interface RunStep<TSnapshot, TEvent> {
  readonly event: TEvent | InitEvent;
  /** The real actor before the step; null at the start. */
  readonly prev: TSnapshot | null;
  /** The real actor after the step. */
  readonly next: TSnapshot;
  readonly actions: readonly Effect[];
  readonly invoked: readonly Invocation[];
}

/**
 * A machine described for model-based testing: how to traverse it (events, the abstraction
 * that makes the state space finite) and what a real actor of it must do (effects).
 */
export interface MachineModel<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput> {
  /** The definition under test; traversed as is, so its actions and invocations never run. */
  readonly machine: AnyStateMachine;
  readonly input: TInput;
  /** Every event the traversal may send, synthetic settlements of invoked actors included. */
  readonly events: readonly TEvent[];
  /** The model state of a snapshot: snapshots with equal projections are one model state. */
  project(snapshot: TSnapshot): object;
  /** A short unique name for an event, used in test names. */
  label(event: TEvent): string;
  /** The machine with recording actions and test-settled actors, via `machine.provide()`. */
  implement(harness: RecordingImplementations): AnyStateMachine;
  /** The oracle: the named actions (in order) and invocations a step must cause. */
  effects(step: Omit<RunStep<TSnapshot, TEvent>, 'actions' | 'invoked'>): ExpectedEffects;
  /** Checks over a whole run, such as "no accepted work is lost". */
  afterPath?(steps: readonly RunStep<TSnapshot, TEvent>[]): void;
}

export interface ModelStep<TSnapshot, TEvent> {
  readonly event: TEvent | InitEvent;
  /** The model state the step must reach. */
  readonly state: TSnapshot;
}

export interface ModelPath<TSnapshot, TEvent> {
  /** The path's events, e.g. `prepare.done → task.received → think.done(answer)`. */
  readonly name: string;
  readonly steps: readonly ModelStep<TSnapshot, TEvent>[];
}

type AnyModel<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject> = MachineModel<TSnapshot, TEvent, unknown>;

function isInit(event: EventObject): event is InitEvent {
  return event.type === 'xstate.init';
}

const serializeEvent = (event: EventObject): string => JSON.stringify(event);

function stateKey<TSnapshot extends AnyMachineSnapshot>(model: AnyModel<TSnapshot, EventObject>, snapshot: TSnapshot): string {
  return JSON.stringify(model.project(snapshot));
}

/** @xstate/graph's `AdjacencyMap`, whose branded-string keys TypeScript cannot index by. */
type Adjacency<TSnapshot, TEvent> = Record<string, { transitions: Record<string, { event: TEvent; state: TSnapshot }> }>;

interface ModelEdge<TSnapshot, TEvent> {
  readonly from: string;
  readonly event: TEvent;
  readonly state: TSnapshot;
}

function traverse<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject>(model: AnyModel<TSnapshot, TEvent>) {
  // The machine also takes the `xstate.done/error.actor.*` events its invocations produce,
  // which its declared event type leaves out; the traversal sends them as plain events.
  const logic = model.machine as unknown as ActorLogic<TSnapshot, TEvent, unknown>;
  const options = {
    input: model.input,
    serializeState: (snapshot: TSnapshot) => stateKey(model, snapshot),
    // Like @xstate/graph's default, offer a state only the events it handles.
    events: (snapshot: TSnapshot) => model.events.filter((event) => snapshot.can(event)),
  };
  const adjacency = getAdjacencyMap(logic, options) as unknown as Adjacency<TSnapshot, TEvent>;
  const shortest: StatePath<TSnapshot, TEvent>[] = getShortestPaths(logic, options);
  const edges: ModelEdge<TSnapshot, TEvent>[] = Object.entries(adjacency).flatMap(([from, { transitions }]) =>
    Object.values(transitions).map(({ event, state }) => ({ from, event, state })),
  );
  return { edges, shortest };
}

function labelOf<TEvent extends EventObject>(model: AnyModel<AnyMachineSnapshot, TEvent>, event: TEvent | InitEvent): string {
  return isInit(event) ? 'start' : model.label(event);
}

/** Event sequences that are a prefix of another one add nothing: drop them. */
function dropPrefixes<T extends { readonly steps: readonly { readonly event: EventObject }[] }>(paths: readonly T[]): T[] {
  const bySequence = paths
    .map((path) => ({ path, sequence: path.steps.map((step) => serializeEvent(step.event)) }))
    .sort((a, b) => b.sequence.length - a.sequence.length);
  const kept: typeof bySequence = [];
  for (const candidate of bySequence) {
    const covered = kept.some(({ sequence }) => candidate.sequence.every((event, i) => sequence[i] === event));
    if (!covered) kept.push(candidate);
  }
  return kept.map(({ path }) => path);
}

/**
 * A transition tour: for every edge of the model's adjacency map, the shortest path to the
 * edge's source followed by the edge. Together the paths take every edge, so they reach
 * every state; prefixes of longer paths are dropped.
 */
function generatePaths<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(
  model: MachineModel<TSnapshot, TEvent, TInput>,
): ModelPath<TSnapshot, TEvent>[] {
  const { edges, shortest } = traverse(model);
  const heads = new Map(shortest.map((path) => [stateKey(model, path.state), path.steps as ModelStep<TSnapshot, TEvent>[]]));
  const tours: { steps: ModelStep<TSnapshot, TEvent>[] }[] = [...heads.values()].map((steps) => ({ steps }));
  for (const { from, event, state } of edges) {
    const head = heads.get(from);
    if (head === undefined) throw new Error(`no shortest path to model state ${from}`);
    tours.push({ steps: [...head, { event, state }] });
  }
  const paths = dropPrefixes(tours).map(({ steps }) => ({
    name:
      steps
        .slice(1)
        .map((step) => labelOf(model, step.event))
        .join(' → ') || 'start',
    steps,
  }));
  const names = new Set(paths.map((path) => path.name));
  if (names.size !== paths.length) throw new Error('two paths share a name: make the model labels unique');
  return paths;
}

/** Every edge of the model as `state --event--> state`, in the model's own serialization. */
function modelEdges<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(model: MachineModel<TSnapshot, TEvent, TInput>): string[] {
  return traverse(model).edges.map(({ from, event, state }) => `${from} --${serializeEvent(event)}--> ${stateKey(model, state)}`);
}

function guardName(guard: AnyTransitionDefinition['guard']): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'inline guard';
  return guard.type;
}

/** `source —event#branch [guard]→ targets`; the branch index tells guarded alternatives apart. */
function transitionKey(transition: AnyTransitionDefinition): string {
  const { source, target } = transition;
  const eventType = String(transition.eventType);
  const branches = eventType === '' ? source.always : source.transitions.get(eventType);
  const guard = guardName(transition.guard);
  const targets = target?.map((node) => node.id).join(', ') ?? `${source.id} (no target)`;
  return `${source.id} —${eventType === '' ? 'always' : eventType}#${branches?.indexOf(transition) ?? -1}${guard === undefined ? '' : ` [${guard}]`}→ ${targets}`;
}

/** The state nodes and transitions a machine defines. */
function definitionOf(machine: AnyStateMachine): { states: string[]; transitions: string[] } {
  const nodes = getStateNodes(machine.root);
  const transitions = [machine.root, ...nodes].flatMap((node) => [...[...node.transitions.values()].flat(), ...(node.always ?? [])]);
  return { states: nodes.map((node) => node.id), transitions: transitions.map(transitionKey) };
}

function nodeIdsOf(prefix: string, value: StateValue): string[] {
  if (typeof value === 'string') return [`${prefix}.${value}`];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}.${key}`, ...(child === undefined ? [] : nodeIdsOf(`${prefix}.${key}`, child))]);
}

const childIds = (snapshot: AnyMachineSnapshot): string[] => Object.keys(snapshot.children as object).sort();

/** What replaying one path did: the steps, the state nodes entered, the transitions taken. */
export interface Replay<TSnapshot, TEvent> {
  readonly steps: RunStep<TSnapshot, TEvent>[];
  readonly states: Set<string>;
  readonly transitions: Set<string>;
  readonly edges: Set<string>;
  /** Why the replay broke off, when it ran without `check`. */
  error?: unknown;
}

/**
 * Runs a path against a real actor of the implemented machine and, with `check`, asserts
 * after every step that it reached the path's model state, runs the expected invocations
 * and fired exactly the expected actions.
 */
async function replay<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(
  model: MachineModel<TSnapshot, TEvent, TInput>,
  path: ModelPath<TSnapshot, TEvent>,
  { check }: { check: boolean },
): Promise<Replay<TSnapshot, TEvent>> {
  const harness = new RecordingImplementations();
  const machine = model.implement(harness);
  const result: Replay<TSnapshot, TEvent> = { steps: [], states: new Set(), transitions: new Set(), edges: new Set() };
  const inspect = (event: InspectionEvent): void => {
    if (event.type !== '@xstate.microstep' || event.actorRef.sessionId !== event.rootId) return;
    for (const id of nodeIdsOf(machine.id, (event.snapshot as AnyMachineSnapshot).value as StateValue)) result.states.add(id);
    for (const transition of event._transitions) result.transitions.add(transitionKey(transition));
  };
  const actor = createActor(machine, { input: model.input, inspect });
  const failures: unknown[] = [];
  actor.subscribe({ error: (error) => failures.push(error) });
  const snapshot = (): TSnapshot => actor.getSnapshot() as TSnapshot;
  try {
    for (const [index, step] of path.steps.entries()) {
      const at = `step ${index} (${labelOf(model, step.event)}) of [${path.name}]`;
      const prev = index === 0 ? null : snapshot();
      const actionsBefore = harness.actions.length;
      const invokedBefore = harness.invoked.length;
      if (isInit(step.event)) actor.start();
      else if (isSettlement(step.event)) harness.settle(step.event);
      else actor.send(step.event);
      await settled();
      const next = snapshot();
      const run: RunStep<TSnapshot, TEvent> = {
        event: step.event,
        prev,
        next,
        actions: harness.actions.slice(actionsBefore),
        invoked: harness.invoked.slice(invokedBefore),
      };
      result.steps.push(run);
      for (const id of nodeIdsOf(machine.id, next.value as StateValue)) result.states.add(id);
      if (prev !== null && !isInit(step.event)) {
        result.edges.add(`${stateKey(model, prev)} --${serializeEvent(step.event)}--> ${stateKey(model, next)}`);
      }
      if (!check) continue;
      expect(failures, `${at}: the actor failed`).toEqual([]);
      expect(next.value, `${at}: state value`).toEqual(step.state.value);
      expect(next.status, `${at}: status`).toBe(step.state.status);
      expect(model.project(next), `${at}: model state`).toEqual(model.project(step.state));
      expect(childIds(next), `${at}: running invocations`).toEqual(childIds(step.state));
      const expected = model.effects({ event: step.event, prev, next });
      expect(run.actions, `${at}: actions fired`).toEqual(expected.actions);
      expect(run.invoked, `${at}: actors invoked`).toEqual(expected.invoked);
    }
    if (check) model.afterPath?.(result.steps);
  } catch (error) {
    if (check) throw error;
    result.error = error;
  } finally {
    actor.stop();
  }
  return result;
}

export interface CoverageItem {
  readonly covered: number;
  readonly total: number;
  readonly missing: string[];
}

export interface Coverage {
  readonly states: CoverageItem;
  readonly transitions: CoverageItem;
  readonly edges: CoverageItem;
}

function item(required: readonly string[], seen: ReadonlySet<string>): CoverageItem {
  const missing = required.filter((key) => !seen.has(key));
  return { covered: required.length - missing.length, total: required.length, missing };
}

/**
 * Replays every path (without the per-step assertions) and measures what the real actors
 * did against the machine's definition (state nodes, transitions) and the model's edges.
 * A path that breaks off still counts for the steps it took.
 */
async function measureCoverage<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(
  model: MachineModel<TSnapshot, TEvent, TInput>,
  paths: readonly ModelPath<TSnapshot, TEvent>[],
): Promise<Coverage> {
  const states = new Set<string>();
  const transitions = new Set<string>();
  const edges = new Set<string>();
  for (const path of paths) {
    const run = await replay(model, path, { check: false });
    run.states.forEach((id) => states.add(id));
    run.transitions.forEach((key) => transitions.add(key));
    run.edges.forEach((key) => edges.add(key));
  }
  const definition = definitionOf(model.machine);
  return {
    states: item(definition.states, states),
    transitions: item(definition.transitions, transitions),
    edges: item(modelEdges(model), edges),
  };
}

/** Fails listing every state node, transition and model edge no replayed path covered. */
function expectFullCoverage(coverage: Coverage): void {
  expect(
    { states: coverage.states.missing, transitions: coverage.transitions.missing, edges: coverage.edges.missing },
    'state nodes no path entered, transitions no path took, model edges the real actor did not follow',
  ).toEqual({ states: [], transitions: [], edges: [] });
}

/**
 * Declares the model-based suite of a machine: one test per generated path, replayed against a
 * real actor, and one test that the paths cover every state node, transition and model edge.
 */
export function describeMachineModel<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(
  title: string,
  model: MachineModel<TSnapshot, TEvent, TInput>,
): void {
  const paths = generatePaths(model);
  const definition = definitionOf(model.machine);
  describe(`${title} (model-based)`, () => {
    it.each(paths.map((path) => [path.name, path] as const))('%s', async (_name, path) => {
      await replay(model, path, { check: true });
    });

    it(`covers all ${definition.states.length} state nodes, ${definition.transitions.length} transitions and every model edge`, async () => {
      const coverage = await measureCoverage(model, paths);
      expectFullCoverage(coverage);
      expect(coverage.states.covered).toBe(definition.states.length);
    });
  });
}
