import type { Subscription } from 'rxjs';
import type { Runtime } from '../../runtime/index.js';
import { Actions, type Approval, type Task, finalStatuses, taskText } from '../../task/index.js';

/** Where a Task stands when a tool call stops waiting for it. */
export interface Outcome {
  readonly taskId: string;
  readonly sessionId: string;
  /** A final status with its answer; `input-required` with the calls waiting for a decision; `working` when the wait ended first. */
  readonly status: Task['status'];
  readonly answer?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly approvals?: readonly Approval[];
  /** What the client can do next, in words a model reads. */
  readonly next: string;
}

/** A step of the society's work on the session, for a client's progress notifications. */
export type ProgressNote = (message: string) => void;

export interface AwaitOptions {
  readonly taskId: string;
  readonly sessionId: string;
  readonly waitMs: number;
  /** The client gave up on the call, or the server stops: stop waiting (the work goes on). */
  readonly signal: AbortSignal;
  readonly onProgress?: ProgressNote;
}

const answered = (task: Task, sessionId: string): Outcome => ({
  taskId: task.id,
  sessionId,
  status: task.status,
  ...(task.status === 'completed' ? { answer: taskText(task) } : {}),
  ...(task.error === null ? {} : { error: { code: task.error.code, message: task.error.message } }),
  next: task.status === 'completed' ? `continue the session with continue_session { sessionId: "${sessionId}" }` : 'the Task ended without an answer',
});

const waiting = (options: AwaitOptions, why: string): Outcome => ({
  taskId: options.taskId,
  sessionId: options.sessionId,
  status: 'working',
  next: `${why}: wait for the answer with await_answer { taskId: "${options.taskId}", sessionId: "${options.sessionId}" }`,
});

const needsDecision = (options: AwaitOptions, approvals: readonly Approval[]): Outcome => ({
  taskId: options.taskId,
  sessionId: options.sessionId,
  status: 'input-required',
  approvals,
  next: `tool calls wait for a person's decision: decide each with decide_approval, then wait with await_answer { taskId: "${options.taskId}", sessionId: "${options.sessionId}" }`,
});

/** A line about a Task of the session, for a progress notification. */
const describeStep = (task: Task): string => `${task.from} → ${task.to}: ${task.action} (${task.status})`;

/**
 * Waits, at most `waitMs`, for the Task's answer, or for a tool call of its session to wait for a
 * person (the client's user is that person): whichever comes first, else `working`. Each Task of
 * the session seen meanwhile (streamed thinking aside) is passed to `onProgress`.
 */
export function awaitOutcome(runtime: Runtime, options: AwaitOptions): Promise<Outcome> {
  const { taskId, sessionId } = options;
  const pending = (): Approval[] => runtime.approvals().filter((approval) => approval.sessionId === sessionId);
  return new Promise((resolve) => {
    if (options.signal.aborted) {
      resolve(waiting(options, 'the wait was ended (the call was cancelled, or the server is stopping)'));
      return;
    }
    const subscriptions: Subscription[] = [];
    let stopOutput = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const state = { done: false };
    const finish = (outcome: Outcome): void => {
      if (state.done) return;
      state.done = true;
      clearTimeout(timer);
      stopOutput();
      for (const subscription of subscriptions) subscription.unsubscribe();
      options.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish(waiting(options, 'the wait was ended (the call was cancelled, or the server is stopping)'));
    // Listening first, then looking: an answer that lands in between is heard, not missed.
    stopOutput = runtime.onOutput((task) => {
      if (task.id === taskId && finalStatuses.has(task.status)) finish(answered(task, sessionId));
    });
    subscriptions.push(
      runtime.approvalEvents().subscribe(({ type, approval }) => {
        if (type === 'waiting' && approval.sessionId === sessionId) finish(needsDecision(options, pending()));
      }),
    );
    const onProgress = options.onProgress;
    if (onProgress !== undefined) {
      subscriptions.push(
        runtime.events('*').subscribe((task) => {
          if (task.sessionId === sessionId && task.action !== Actions.thinking) onProgress(describeStep(task));
        }),
      );
    }
    options.signal.addEventListener('abort', onAbort);
    // An answer that came before the call: `waitForAnswer` gives a known one at once.
    runtime.waitForAnswer(taskId, { timeoutMs: 0 }).then(
      (task) => finish(answered(task, sessionId)),
      () => undefined,
    );
    const decisions = pending();
    if (decisions.length > 0) finish(needsDecision(options, decisions));
    if (!state.done) timer = setTimeout(() => finish(waiting(options, `no answer within ${options.waitMs / 1000} s`)), options.waitMs);
  });
}
