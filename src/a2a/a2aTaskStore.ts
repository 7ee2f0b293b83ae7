import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';
import { terminalStates } from './a2aParts.js';

/** What one store keeps: its tasks, and the messages of each task's history. */
export interface A2aTaskStoreLimits {
  readonly maxTasks: number;
  readonly maxHistory: number;
}

const defaultPageSize = 50;
const maxPageSize = 100;

/**
 * The A2A view of troupe's Tasks the SDK's request handler reads and writes: each A2A task's state,
 * its last messages and its artifacts, keyed by the A2A task's id, with the id of the troupe Task
 * behind it in `metadata.troupeTaskId`. troupe's own Tasks, their logs and their artifacts stay
 * where they are (the org store, the artifact store); this keeps only what the protocol adds, and
 * only `maxTasks` of it: past it the oldest ended task goes first (an unended one only when none
 * has ended), and each history keeps its newest `maxHistory` messages.
 *
 * One token is one client (docs/http.md), so every caller sees every task, as on the rest of the API.
 */
export class A2aTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Task>();
  readonly #limits: A2aTaskStoreLimits;

  constructor(limits: A2aTaskStoreLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#tasks.size;
  }

  async save(task: Task): Promise<void> {
    const history = task.history.length > this.#limits.maxHistory ? task.history.slice(-this.#limits.maxHistory) : task.history;
    // Moved to the end: the map's order is the order of last change, which eviction and listing follow.
    this.#tasks.delete(task.id);
    this.#tasks.set(task.id, structuredClone({ ...task, history }));
    if (this.#tasks.size > this.#limits.maxTasks) this.#evictOne();
  }

  async load(taskId: string): Promise<Task | undefined> {
    const task = this.#tasks.get(taskId);
    // A copy: the handler changes what it loads before it saves it.
    return task === undefined ? undefined : structuredClone(task);
  }

  /** Newest change first, filtered by context and state, a page at a time (the token is the last id of the page before). */
  async list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const pageSize = Math.min(Math.max(params.pageSize ?? defaultPageSize, 1), maxPageSize);
    const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
    const matching = [...this.#tasks.values()].reverse().filter((task) => {
      if (params.contextId !== '' && task.contextId !== params.contextId) return false;
      if (params.status !== TaskState.TASK_STATE_UNSPECIFIED && task.status?.state !== params.status) return false;
      return after === undefined || Date.parse(task.status?.timestamp ?? '') > after;
    });
    const start = params.pageToken === '' ? 0 : matching.findIndex((task) => task.id === params.pageToken) + 1;
    const page = start === 0 && params.pageToken !== '' ? [] : matching.slice(start, start + pageSize);
    const more = start + page.length < matching.length;
    return {
      tasks: page.map((task) => structuredClone({ ...task, artifacts: params.includeArtifacts === true ? task.artifacts : [] })),
      nextPageToken: more && page.length > 0 ? (page.at(-1)?.id ?? '') : '',
      pageSize,
      totalSize: matching.length,
    };
  }

  #evictOne(): void {
    for (const [id, task] of this.#tasks) {
      if (task.status !== undefined && terminalStates.has(task.status.state)) {
        this.#tasks.delete(id);
        return;
      }
    }
    const oldest = this.#tasks.keys().next();
    if (oldest.done !== true) this.#tasks.delete(oldest.value);
  }
}
