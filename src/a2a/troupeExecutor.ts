import { type Message, type Task as A2aTask, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { TroupeError, ValidationError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import type { ApprovalNotice } from '../task/index.js';
import { dataOf, message, textOf, textPart } from './a2aParts.js';
import { A2aRun, type RunTarget, newA2aTask, publishStatus, refusalText } from './a2aRun.js';
import type { A2aTaskStore } from './a2aTaskStore.js';
import { approvalReplies } from './approvalReply.js';
import type { TaskWatch } from './taskWatch.js';
import type { RequestTraces } from './a2aTrace.js';

/** Metadata of a message that asks for the answer as a plain A2A message rather than a task. */
const replyAsMessage = (metadata: Record<string, unknown> | undefined): boolean => metadata?.['replyAs'] === 'message';

/**
 * Runs A2A requests on a troupe runtime. A new message is a requirement submitted to the society
 * (`rt.submit`) in the session named by its `contextId`; its A2A task follows the troupe Task.
 * A follow-up to a task waiting for input either decides the calls it waits on (`rt.decide`, a
 * data part per call, see `approvalReplies`) or, when an agent asked the user, is the user's next
 * message in the session. A message with `metadata.replyAs: 'message'` is answered with a plain
 * message, no task kept.
 */
export class TroupeExecutor implements AgentExecutor {
  readonly #runtime: Runtime;
  readonly #watch: TaskWatch;
  readonly #store: A2aTaskStore;
  readonly #runs = new Map<string, A2aRun>();
  readonly #traces: RequestTraces;

  constructor(runtime: Runtime, watch: TaskWatch, store: A2aTaskStore, traces: RequestTraces) {
    this.#runtime = runtime;
    this.#watch = watch;
    this.#store = store;
    this.#traces = traces;
  }

  /** A2A tasks being followed now. */
  get running(): number {
    return this.#runs.size;
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const target: RunTarget = { publish: (event) => bus.publish(event), taskId: context.taskId, contextId: context.contextId };
    const incoming = context.userMessage;
    if (context.task !== undefined) return this.#followUp(context.task, target, incoming);
    if (replyAsMessage(incoming.metadata)) return this.#messageReply(target, textOf(incoming.parts), incoming.messageId);
    const run = this.#start(target);
    let troupeTaskId: string;
    try {
      troupeTaskId = await this.#submit(textOf(incoming.parts), target.contextId, incoming.messageId);
    } catch (error) {
      run.end();
      this.#runs.delete(target.taskId);
      target.publish(AgentEvent.task(newA2aTask(target, TaskState.TASK_STATE_SUBMITTED, undefined, [incoming])));
      publishStatus(target, TaskState.TASK_STATE_REJECTED, [textPart(refusalText(error))]);
      return;
    }
    // The task first, as the protocol wants; then what the session said meanwhile.
    target.publish(AgentEvent.task(newA2aTask(target, TaskState.TASK_STATE_SUBMITTED, troupeTaskId, [incoming])));
    run.follow(troupeTaskId);
    await this.#finish(target, run);
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.#runs.get(taskId);
    const stored = await this.#store.load(taskId);
    const troupeTaskId = run?.troupeTaskId ?? troupeTaskOf(stored);
    // The troupe Task is canceled where it runs (its turn stopped, what it delegated taken back); one
    // no agent here holds (on another node) at least stops waiting: the calls it waits on are refused.
    if (troupeTaskId !== undefined && !(await this.#runtime.cancel(troupeTaskId, { reason: 'the A2A client canceled the task' }).catch(() => false)))
      await this.#rejectWaiting(troupeTaskId);
    if (run !== undefined) run.end(true);
    else if (stored !== undefined)
      publishStatus({ publish: (event) => bus.publish(event), taskId, contextId: stored.contextId }, TaskState.TASK_STATE_CANCELED, [
        textPart('canceled by the client'),
      ]);
  }

  #start(target: RunTarget): A2aRun {
    const run = new A2aRun(this.#runtime, this.#watch, target);
    this.#runs.set(target.taskId, run);
    return run;
  }

  async #finish(target: RunTarget, run: A2aRun): Promise<void> {
    try {
      await run.done;
    } finally {
      if (this.#runs.get(target.taskId) === run) this.#runs.delete(target.taskId);
    }
  }

  /** The client's answer to a task waiting for input: decisions on the calls it waits on, or the user's next message. */
  async #followUp(task: A2aTask, target: RunTarget, { parts, messageId }: Message): Promise<void> {
    const troupeTaskId = troupeTaskOf(task);
    const waiting = troupeTaskId === undefined ? [] : this.#waitingOn(troupeTaskId);
    target.publish(AgentEvent.task(task));
    const run = this.#start(target);
    try {
      if (waiting.length > 0 && troupeTaskId !== undefined) {
        const replies = approvalReplies(dataOf(parts), waiting);
        publishStatus(target, TaskState.TASK_STATE_WORKING);
        run.follow(troupeTaskId);
        for (const { approval, decision } of replies) await this.#decide(approval, decision);
      } else {
        const next = await this.#submit(textOf(parts), target.contextId, messageId);
        target.publish(AgentEvent.task({ ...task, metadata: { ...task.metadata, troupeTaskId: next } }));
        publishStatus(target, TaskState.TASK_STATE_WORKING);
        run.follow(next);
      }
    } catch (error) {
      run.end();
      this.#runs.delete(target.taskId);
      // A reply troupe cannot take leaves the task waiting, saying why: the client may answer again.
      const why = error instanceof ValidationError ? `invalid reply: ${error.message}` : refusalText(error);
      publishStatus(target, TaskState.TASK_STATE_INPUT_REQUIRED, [textPart(why)]);
      return;
    }
    await this.#finish(target, run);
  }

  /** Submits a message's text in the session `contextId`, the work joining the trace of the request that sent it. */
  #submit(text: string, contextId: string, messageId: string): Promise<string> {
    const trace = this.#traces.of(messageId);
    return this.#runtime.submit(text, trace === undefined ? { sessionId: contextId } : { sessionId: contextId, trace });
  }

  /** Decides one call; one decided meanwhile by someone else (HTTP, the CLI) is no error: the task goes on all the same. */
  async #decide(id: string, decision: Parameters<Runtime['decide']>[1]): Promise<void> {
    try {
      await this.#runtime.decide(id, decision);
    } catch (error) {
      if (!(error instanceof TroupeError && error.code === 'conflict')) throw error;
    }
  }

  #waitingOn(troupeTaskId: string): ApprovalNotice[] {
    return this.#runtime
      .approvals()
      .filter((approval) => approval.taskId === troupeTaskId && approval.status === 'pending')
      .map(({ id, tool, toolCallId, digest }) => ({ id, tool, toolCallId, digest }));
  }

  async #rejectWaiting(troupeTaskId: string): Promise<void> {
    for (const { id } of this.#waitingOn(troupeTaskId)) {
      await this.#decide(id, { action: 'reject', message: 'the A2A client canceled the task', by: 'a2a' }).catch(() => undefined);
    }
  }

  /** Answers with a plain message: the troupe Task's reply, or why it was refused. */
  async #messageReply(target: RunTarget, text: string, messageId: string): Promise<void> {
    let answer = '';
    // The run's updates are not the client's: only the text of the last one said is kept, for the message.
    const keepText = (event: AgentExecutionEvent): void => {
      const said = event.kind === 'statusUpdate' ? event.data.status?.message : undefined;
      if (said !== undefined) answer = textOf(said.parts);
    };
    const run = new A2aRun(this.#runtime, this.#watch, { ...target, publish: keepText });
    try {
      run.follow(await this.#submit(text, target.contextId, messageId));
      await run.done;
    } catch (error) {
      run.end();
      answer = refusalText(error);
    }
    target.publish(AgentEvent.message(message([textPart(answer)], { contextId: target.contextId })));
  }
}

/** The troupe Task behind an A2A task, as its metadata names it. */
function troupeTaskOf(task: A2aTask | undefined): string | undefined {
  const id: unknown = task?.metadata?.['troupeTaskId'];
  return typeof id === 'string' ? id : undefined;
}
