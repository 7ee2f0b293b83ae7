import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { describeError } from '../../errors.js';
import type { EventStatus, GraphMemory, NodeKind } from '../../graph/index.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { SummarisedWarning } from '../../summarisedWarning.js';
import { Actions, type JsonValue, type Task, type TaskStatus, answersWork, asksForWork, taskText } from '../../task/index.js';
import type { GraphHub } from './graphHub.js';

// The society's own work in each agent's graph, with no model call (issue 33, point 5): a Task an
// agent takes or gives is an event (a Task given while working on another is `part_of` that one),
// its status follows the Task's, its answer and the artifacts its tools stored are notes the event
// `produces`, and the steps of a plan (`create_plan`) are events `part_of` the planning Task, each
// `depends_on` the one before.

/** What a recorded node came from, in its metadata's `work`: how the recorder knows its own nodes. */
type WorkKind = 'task' | 'plan_step' | 'answer' | 'artifact';

/** The artifacts a tool-result observation names (see keepToolResult): stored already, referred to by id. */
const ArtifactRefsSchema = z.array(z.object({ id: z.string(), name: z.string(), mediaType: z.string(), size: z.number() }));

/** An event's status for a Task's: a Task over for good, whatever its outcome, blocks nothing (`archived` when it did not complete). */
const statusOf: Readonly<Record<TaskStatus, EventStatus>> = {
  submitted: 'pending',
  working: 'in_progress',
  'input-required': 'in_progress',
  completed: 'done',
  failed: 'archived',
  canceled: 'archived',
  rejected: 'archived',
};

/** The actions of the Tasks recorded: work (and its replies), plan steps and tool results (for their artifacts); notices, thinking and tool calls are not. */
const recordedActions: ReadonlySet<string> = new Set([Actions.execute, Actions.message, Actions.planStep, Actions.toolResult]);

/** Plans whose last step is remembered, so the next step of the same plan can depend on it. */
const plansRemembered = 1024;

export interface WorkGraphDeps {
  readonly graphs: GraphHub;
  /** Whether `agentId` is an agent whose memory is open here: only they have a graph to record in. */
  readonly isLive: (agentId: string) => boolean;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Makes the ids of answer notes. */
  readonly ids: IdGenerator;
  /** Nodes recorded from work one graph keeps at most; past it the oldest go first. 0: nothing is recorded. */
  readonly maxWorkNodes: number;
}

/**
 * Records what agents do in their graphs as Tasks pass on the bus (fed by the memory hub). Each
 * owner's records are made in the order the Tasks were published; a record the graph refuses (it
 * is full) is skipped with a summarised warning, and never stops the work it records.
 */
export class WorkGraph {
  readonly #deps: WorkGraphDeps;
  /** Each owner's recorded nodes, oldest first, read from its graph on its first record. */
  readonly #recorded = new Map<string, string[]>();
  /** The last step recorded of each plan (`owner parentTaskId` → step's node id), the oldest plan forgotten first. */
  readonly #lastSteps = new Map<string, string>();
  readonly #warning: SummarisedWarning<'refused'>;

  constructor(deps: WorkGraphDeps) {
    this.#deps = deps;
    this.#warning = new SummarisedWarning(deps.logger, deps.clock, 'graph memory: work not recorded', 10_000);
  }

  /** Records `task` in the graph of each live agent it is from or to. */
  observe(task: Task): void {
    if (this.#deps.maxWorkNodes === 0 || !recordedActions.has(task.action)) return;
    for (const owner of task.from === task.to ? [task.from] : [task.from, task.to]) {
      if (!this.#deps.isLive(owner)) continue;
      this.#deps.graphs.of(owner).then(
        (graph) => this.#record(owner, graph, task),
        () => undefined,
      );
    }
  }

  /** Lets go of what is kept of `owner`'s graph (its agent was released). */
  forget(owner: string): void {
    this.#recorded.delete(owner);
  }

  close(): void {
    this.#warning.close();
  }

  #record(owner: string, graph: GraphMemory, task: Task): void {
    try {
      if (task.action === Actions.toolResult) this.#artifacts(owner, graph, task);
      else if (task.action === Actions.planStep && task.status === 'submitted') this.#planStep(owner, graph, task);
      else if (asksForWork(task)) this.#work(owner, graph, task);
      else if (graph.graph.node(task.id)?.kind === 'event' && (task.action === Actions.execute || task.action === Actions.message))
        this.#progress(owner, graph, task);
    } catch (error) {
      this.#refused(owner, task.id, error);
    }
  }

  /** A Task `owner` takes or gives: an event, part of the Task it was given while it works on it. */
  #work(owner: string, graph: GraphMemory, task: Task): void {
    if (graph.graph.node(task.id) !== undefined) return;
    const about: Record<string, JsonValue> = task.to === owner ? { from: task.from } : { to: task.to };
    if (this.#add(owner, graph, 'event', task, taskText(task), { ...about, action: task.action }) === undefined) return;
    this.#partOf(owner, graph, task.id, task.parentId);
  }

  /** A step of `owner`'s plan: an event, part of the Task planned for, after the step before it. */
  #planStep(owner: string, graph: GraphMemory, task: Task): void {
    if (graph.graph.node(task.id) !== undefined) return;
    const { title, detail, index } = task.parameters;
    // A step `create_plan` made has a title, and may have a detail; another's is recorded as its text.
    const named = typeof title === 'string' ? title : taskText(task);
    const content = typeof detail === 'string' && detail !== '' ? `${named}: ${detail}` : named;
    if (this.#add(owner, graph, 'event', task, content, { index: typeof index === 'number' ? index : 0 }) === undefined) return;
    this.#partOf(owner, graph, task.id, task.parentId);
    const plan = `${owner} ${task.parentId ?? ''}`;
    const before = index === 0 ? undefined : this.#lastSteps.get(plan);
    if (before !== undefined && graph.graph.node(before) !== undefined)
      void this.#written(owner, task.id, graph.link({ from: task.id, to: before, type: 'depends_on' }));
    this.#lastSteps.delete(plan);
    this.#lastSteps.set(plan, task.id);
    if (this.#lastSteps.size > plansRemembered) this.#lastSteps.delete(this.#lastSteps.keys().next().value ?? '');
  }

  /** A Task's new status: its event's follows; a completed answer becomes a note the event produces. */
  #progress(owner: string, graph: GraphMemory, task: Task): void {
    const status = statusOf[task.status];
    const event = graph.graph.node(task.id);
    if (event?.kind === 'event' && event.status !== status) {
      void this.#written(owner, task.id, graph.updateNode(task.id, { status, metadata: { ...event.metadata, taskStatus: task.status } }));
    }
    if (!answersWork(task) || task.status !== 'completed') return;
    const answered = graph.graph.outEdges(task.id, 'produces').some((edge) => graph.graph.node(edge.to)?.metadata['work'] === 'answer');
    if (answered) return;
    const note = this.#add(owner, graph, 'answer', task, taskText(task), { by: task.from, title: 'answer' });
    if (note !== undefined) void this.#written(owner, task.id, graph.link({ from: task.id, to: note, type: 'produces' }));
  }

  /** The artifacts a tool stored during `owner`'s work on a Task: notes its event produces, naming each artifact by id. */
  #artifacts(owner: string, graph: GraphMemory, task: Task): void {
    const refs = ArtifactRefsSchema.safeParse(task.parameters['artifacts']);
    const event = task.parentId === null ? undefined : graph.graph.node(task.parentId);
    if (!refs.success || event?.kind !== 'event') return;
    const tool = task.parameters['tool'];
    for (const ref of refs.data) {
      const text = `${ref.name} (${ref.mediaType}, ${ref.size} bytes), artifact ${ref.id}${typeof tool === 'string' ? ` from ${tool}` : ''}`;
      const note = this.#add(owner, graph, 'artifact', task, text, { title: ref.name, artifactId: ref.id });
      if (note !== undefined) void this.#written(owner, task.id, graph.link({ from: event.id, to: note, type: 'produces' }));
    }
  }

  /** Adds a recorded node (making room by removing the oldest recorded ones first); its id, or undefined when the graph refused it (logged). */
  #add(
    owner: string,
    graph: GraphMemory,
    made: 'event' | 'answer' | 'artifact',
    task: Task,
    text: string,
    about: Record<string, JsonValue>,
  ): string | undefined {
    const kind: NodeKind = made === 'event' ? 'event' : 'note';
    const recorded = this.#recordedOf(owner, graph);
    while (recorded.length >= this.#deps.maxWorkNodes) {
      const oldest = recorded.shift();
      if (oldest !== undefined && graph.graph.node(oldest) !== undefined) void this.#written(owner, task.id, graph.removeNode(oldest));
    }
    const max = graph.limits.maxContentChars;
    const content = text.length > max ? `${text.slice(0, max - 1)}…` : text;
    const { title, ...rest } = about;
    const work: WorkKind = made === 'answer' || made === 'artifact' ? made : task.action === Actions.planStep ? 'plan_step' : 'task';
    const metadata = { work, taskId: task.id, ...rest };
    const common = { content, sessionId: task.sessionId, metadata };
    const id = kind === 'event' ? task.id : this.#deps.ids.task();
    // Applied in memory at once (a refusal rejects with nothing changed); on disk once the promise settles.
    const adding =
      kind === 'event'
        ? graph.addEvent({ ...common, id, status: statusOf[task.status] })
        : graph.addNote({ ...common, id, title: typeof title === 'string' ? title : '' });
    void this.#written(owner, task.id, adding);
    if (graph.graph.node(id) === undefined) return undefined;
    recorded.push(id);
    return id;
  }

  /** Links `id` to the event of the Task `parentId`, when `owner`'s graph has one and it has no parent yet. */
  #partOf(owner: string, graph: GraphMemory, id: string, parentId: string | null): void {
    if (parentId === null || graph.graph.node(parentId)?.kind !== 'event' || graph.graph.outEdges(id, 'part_of').length > 0) return;
    void this.#written(owner, id, graph.link({ from: id, to: parentId, type: 'part_of' }));
  }

  #recordedOf(owner: string, graph: GraphMemory): string[] {
    let recorded = this.#recorded.get(owner);
    if (recorded === undefined) {
      const nodes = [...graph.graph.nodes()].filter((node) => typeof node.metadata['work'] === 'string');
      recorded = nodes.sort((a, b) => a.createdAt - b.createdAt).map((node) => node.id);
      this.#recorded.set(owner, recorded);
    }
    return recorded;
  }

  /** Waits for a record's write; a failure is logged, never thrown at the work it records. */
  async #written(owner: string, taskId: string, change: Promise<unknown>): Promise<void> {
    try {
      await change;
    } catch (error) {
      this.#refused(owner, taskId, error);
    }
  }

  #refused(owner: string, taskId: string, error: unknown): void {
    this.#warning.add('refused', { owner, taskId, error: describeError(error) });
  }
}
