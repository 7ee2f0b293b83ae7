import { type Message, type Part, type Task as A2aTask, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { describeError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import { Actions, type ApprovalNotice, type Task, finalStatuses, taskText } from '../task/index.js';
import { a2aArtifact, a2aState, dataPart, message, textPart } from './a2aParts.js';
import type { TaskWatch } from './taskWatch.js';

/** Where one A2A task's events go (the SDK's bus for it), and its ids. */
export interface RunTarget {
  readonly publish: (event: AgentExecutionEvent) => void;
  readonly taskId: string;
  readonly contextId: string;
}

const now = (at?: number): string => new Date(at ?? Date.now()).toISOString();

/** The approvals an `input-required` update of a troupe Task names (docs/approvals.md), or none. */
function approvalsNamed(task: Task): ApprovalNotice[] {
  const named = task.metadata['approvals'];
  return Array.isArray(named) ? (named as unknown as ApprovalNotice[]) : [];
}

/** A new A2A task in `state`, behind the troupe Task `troupeTaskId` (kept in its metadata). */
export function newA2aTask(target: RunTarget, state: TaskState, troupeTaskId: string | undefined, history: Message[]): A2aTask {
  return {
    id: target.taskId,
    contextId: target.contextId,
    status: { state, message: undefined, timestamp: now() },
    artifacts: [],
    history,
    metadata: troupeTaskId === undefined ? {} : { troupeTaskId },
  };
}

/** Publishes a status update of the A2A task, with the agent's message when there is something to say. */
export function publishStatus(target: RunTarget, state: TaskState, parts: Part[] = [], at?: number): void {
  const said = parts.length === 0 ? undefined : message(parts, target);
  target.publish(
    AgentEvent.statusUpdate({ taskId: target.taskId, contextId: target.contextId, status: { state, message: said, timestamp: now(at) }, metadata: undefined }),
  );
}

/**
 * One troupe Task followed for its A2A task: its session is watched from before it is sent (an
 * answer can never slip past), the turn's tool calls become `working` updates, its artifacts A2A
 * artifacts, and its reply the A2A task's state. `done` resolves when the reply ends the request
 * (a final state, or `input-required`), or the A2A task is canceled.
 */
export class A2aRun {
  readonly done: Promise<void>;
  readonly #runtime: Runtime;
  readonly #target: RunTarget;
  readonly #unwatch: () => void;
  #troupeTaskId: string | undefined;
  #early: Task[] = [];
  #over = false;
  #resolve: () => void = () => undefined;

  constructor(runtime: Runtime, watch: TaskWatch, target: RunTarget) {
    this.#runtime = runtime;
    this.#target = target;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    this.#unwatch = watch.watch(target.contextId, (task) => {
      if (this.#troupeTaskId === undefined) this.#early.push(task);
      else this.#take(task);
    });
  }

  get troupeTaskId(): string | undefined {
    return this.#troupeTaskId;
  }

  /** From now on, follows `troupeTaskId` (with what its session published while it was being sent). */
  follow(troupeTaskId: string): void {
    this.#troupeTaskId = troupeTaskId;
    const early = this.#early;
    this.#early = [];
    for (const task of early) this.#take(task);
  }

  /** Ends the run: `canceled` (by the client) publishes the A2A task's cancellation. */
  end(canceled = false): void {
    if (this.#over) return;
    this.#over = true;
    this.#unwatch();
    this.#early = [];
    if (canceled) publishStatus(this.#target, TaskState.TASK_STATE_CANCELED, [textPart('canceled by the client')]);
    this.#resolve();
  }

  #take(task: Task): void {
    if (this.#over) return;
    const id = this.#troupeTaskId;
    if (task.to === 'observer' && task.parentId === id && task.action === Actions.toolCall) {
      const tool = task.parameters['tool'];
      publishStatus(this.#target, TaskState.TASK_STATE_WORKING, [textPart(`${task.from} calls ${typeof tool === 'string' ? tool : 'a tool'}`)], task.createdAt);
    } else if (task.to === 'user' && task.id === id) this.#reply(task);
  }

  #reply(task: Task): void {
    const approvals = approvalsNamed(task);
    const text = task.error === null ? taskText(task) : task.error.message;
    if (task.status === 'working' || task.status === 'submitted') {
      publishStatus(this.#target, a2aState(task.status), [], task.createdAt);
      return;
    }
    // The Task's artifacts go before its final state: a client that stops at the end has them all.
    if (finalStatuses.has(task.status)) this.#publishArtifacts(task);
    const parts = approvals.length === 0 ? [textPart(text)] : [textPart(text), dataPart({ approvals })];
    publishStatus(this.#target, a2aState(task.status), parts, task.createdAt);
    this.end();
  }

  #publishArtifacts(task: Task): void {
    const { publish, taskId, contextId } = this.#target;
    for (const ref of this.#runtime.artifacts(task.sessionId)) {
      if (ref.taskId !== task.id) continue;
      const stored = this.#runtime.artifact(ref.id);
      if (stored === undefined) continue;
      publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: a2aArtifact(stored), append: false, lastChunk: true, metadata: undefined }));
    }
  }
}

/** The text a failed submit is rejected with. */
export function refusalText(error: unknown): string {
  return `troupe refused the task: ${describeError(error)}`;
}
