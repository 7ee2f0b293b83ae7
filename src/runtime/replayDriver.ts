import type { EventBus } from '../bus/index.js';
import type { RunReplayer, RunTap } from '../replay/index.js';
import { Actions, type ApprovalDecisionInput, type Task, finalStatuses, taskText } from '../task/index.js';
import type { Runtime } from './runtime.js';

/** How a replay ended: the Tasks it published and its answers to the user. */
export interface ReplayReport {
  readonly tasks: number;
  readonly answers: readonly Task[];
}

/** The recorded input `task` sent again, as the program sent it (`submit` for new work to root, `send` otherwise). */
function sendAgain(runtime: Runtime, task: Task): Promise<string> {
  const text = taskText(task);
  const newSession = task.sessionId === task.id;
  if (task.action === Actions.execute && task.to === 'root' && task.parentId === null)
    return runtime.submit(text, newSession ? {} : { sessionId: task.sessionId });
  return runtime.send(task.to, text, { ...(task.parentId === null ? {} : { taskId: task.parentId }), ...(newSession ? {} : { sessionId: task.sessionId }) });
}

/**
 * Drives a replay's runtime as the recorded program drove its own: checks each Task the bus
 * carries against the recorded log, sends each recorded user input again once as many Tasks are
 * out as before it in the run, and shuts the runtime down where the program did. `finished`
 * resolves once the log is reproduced; the first divergence shuts the runtime down at once and
 * rejects it.
 */
export class ReplayDriver {
  readonly finished: Promise<ReplayReport>;
  readonly tap: RunTap;
  readonly #replayer: RunReplayer;
  readonly #answers: Task[] = [];
  readonly #issued = new Set<number>();
  #runtime: Runtime | undefined;
  #shutdown: Promise<unknown> | undefined;
  #settle: { resolve: (report: ReplayReport) => void; reject: (error: unknown) => void } = { resolve: () => undefined, reject: () => undefined };

  constructor(replayer: RunReplayer) {
    this.#replayer = replayer;
    this.finished = new Promise<ReplayReport>((resolve, reject) => (this.#settle = { resolve, reject }));
    replayer.onDiverged((error) => {
      this.#shutdown ??= this.#runtime?.shutdown({ drainTimeoutMs: 0 }) ?? Promise.resolve();
      void this.#shutdown.finally(() => this.#settle.reject(error));
    });
    this.tap = {
      tape: replayer,
      model: (client) => client,
      execution: replayer.execution,
      started: (bus: EventBus) => {
        replayer.started();
        bus.subscribe({ pattern: '*' }, (task) => this.#carried(task), 'replay');
      },
      shuttingDown: () => replayer.shuttingDown(),
      closed: () => undefined,
    };
  }

  /** The runtime is ready (prepared): the recorded inputs start going in. */
  start(runtime: Runtime): void {
    this.#runtime = runtime;
    this.#advance();
  }

  #carried(task: Task): void {
    this.#replayer.tasks.check(task);
    if (task.to === 'user' && finalStatuses.has(task.status)) this.#answers.push(task);
    queueMicrotask(() => this.#advance());
  }

  /** What is due once `published` Tasks are out: the next recorded input, the shutdown, or the end. */
  #advance(): void {
    const runtime = this.#runtime;
    const replayer = this.#replayer;
    const { tasks } = replayer;
    if (runtime === undefined || replayer.divergence !== undefined) return;
    const n = tasks.published;
    for (const { key, value } of replayer.decisionsDue(n)) {
      runtime
        .decide(key, value as ApprovalDecisionInput)
        .catch((error: unknown) => replayer.diverged(`the recorded decision on ${key} was refused: ${String(error)}`));
    }
    const input = tasks.inputAt(n);
    if (input !== undefined && !this.#issued.has(n)) {
      this.#issued.add(n);
      sendAgain(runtime, input).catch((error: unknown) => replayer.diverged(`sending the recorded input ${input.id} again failed: ${String(error)}`));
    } else if (tasks.shutdownAt !== undefined && n >= tasks.shutdownAt && this.#shutdown === undefined) {
      this.#shutdown = runtime.shutdown().then(
        () => this.#finish(),
        (error: unknown) => this.#settle.reject(error),
      );
    } else if (tasks.shutdownAt === undefined && n === tasks.recorded.length) this.#finish();
  }

  #finish(): void {
    const replayer = this.#replayer;
    const { tasks } = replayer;
    if (tasks.end !== undefined && tasks.published !== tasks.end) replayer.diverged(`the replay published ${tasks.published} Tasks; the run ${tasks.end}`);
    if (replayer.divergence === undefined) this.#settle.resolve({ tasks: tasks.published, answers: this.#answers });
  }
}
