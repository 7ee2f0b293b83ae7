import { Actions, type Redactor, type Task, asksForWork, finalStatuses } from '../task/index.js';
import { canonicalJson } from './canonical.js';
import { lineDiff } from './requestDiff.js';

/**
 * Whether `value` (plain data) and `json` (parsed JSON) are the same JSON value: the same fields,
 * in any order, with the same values. False for anything else, a value that is not plain data
 * included (the canonical comparison then decides).
 */
function sameJson(value: unknown, json: unknown): boolean {
  if (value === json) return true;
  if (typeof value !== 'object' || typeof json !== 'object' || value === null || json === null) return false;
  if (Array.isArray(value)) return Array.isArray(json) && value.length === json.length && value.every((item, i) => sameJson(item, json[i]));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(json) || (prototype !== Object.prototype && prototype !== null)) return false;
  const keys = Object.keys(value);
  if (keys.length !== Object.keys(json).length) return false;
  return keys.every((key) => Object.hasOwn(json, key) && sameJson((value as Record<string, unknown>)[key], (json as Record<string, unknown>)[key]));
}

/** A Task as the lines a diff compares: one per field. */
function taskLines(task: Task): string[] {
  return Object.keys(task)
    .sort()
    .map((key) => `${key}: ${canonicalJson(task[key as keyof Task])}`);
}

/**
 * The Task log a replay must reproduce: the bus's Tasks of the recorded run, in order. Each Task
 * the replay's bus carries is checked against the one at its place (redacted as the recording
 * was); the first that differs, or one past the end, is a divergence, shown as a diff.
 */
export class TaskLog {
  #published = 0;

  constructor(
    readonly recorded: readonly Task[],
    private readonly redactor: Redactor,
    /** After how many Tasks the program began the shutdown, if it did while recording; how many Tasks the run published in all, if its recording ended properly. */
    readonly marks: { readonly shutdownAt: number | undefined; readonly end: number | undefined },
    /** Told of each Task reached (by its place), and of the first divergence. */
    private readonly on: { readonly reached: (n: number) => void; readonly diverged: (message: string) => void },
  ) {}

  get shutdownAt(): number | undefined {
    return this.marks.shutdownAt;
  }

  get end(): number | undefined {
    return this.marks.end;
  }

  /** Tasks the replay has published so far. */
  get published(): number {
    return this.#published;
  }

  /** Checks the next Task the replay published against the run's. */
  check(task: Task): void {
    const n = this.#published++;
    this.on.reached(n);
    const expected = this.recorded[n];
    if (expected === undefined) {
      this.on.diverged(`the replay published a Task past the ${this.recorded.length} the run did: ${task.action} from ${task.from} to ${task.to} (${task.id})`);
      return;
    }
    // The recorded Task is redacted, and redacting it again leaves it as it is: a Task equal to it
    // is equal redacted too. Any other is redacted as the recorder redacts it and compared canonical.
    if (sameJson(task, expected)) return;
    const replayed = this.redactor.leaves(JSON.stringify(task)) ? task : this.redactor.task(task);
    if (canonicalJson(replayed) === canonicalJson(expected)) return;
    const diff = lineDiff(taskLines(expected), taskLines(replayed));
    this.on.diverged(`Task ${n + 1} of the log differs from the run's (- recorded, + replay):\n${diff}`);
  }

  /** The user's input (a `submit` or `send`) the run published as Task `n`, when it is one: the replay sends it again there. */
  inputAt(n: number): Task | undefined {
    const task = this.recorded[n];
    return task !== undefined && task.from === 'user' && asksForWork(task) && (task.action === Actions.execute || task.action === Actions.message)
      ? task
      : undefined;
  }

  /** The run's answers to the user: the final replies addressed to `user`, in order. */
  answers(): Task[] {
    return this.recorded.filter((task) => task.to === 'user' && finalStatuses.has(task.status));
  }
}
