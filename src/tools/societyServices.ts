import { onAbort } from '../abort.js';
import { RequestTimeoutError, TroupeError, describeError } from '../errors.js';
import { type TraceCarrier, carrierFields } from '../traceContext.js';
import { Actions, type Task, type TaskMetadata, createTask } from '../task/index.js';
import type { RoutedWork, SocietyPort, WorkRequest } from './societyPort.js';

// What send_message, delegate_task, compress_context and create_plan do, each a plain function
// over the society's port, beside the tools they serve.

/** One step of a plan as a model writes it. */
export interface PlanStepInput {
  readonly title: string;
  readonly detail?: string | undefined;
}

/** A recorded plan: each step became a `plan.step` Task, in order. */
export interface RecordedPlan {
  /** The id the steps hang from (their `parentId`): the Task the plan was made for. */
  readonly planId: string;
  readonly steps: readonly { readonly taskId: string; readonly index: number; readonly title: string }[];
}

/** Sends `text` to `to` (an agent or `user`) without waiting; returns the Task sent. */
export function sendMessage(
  society: SocietyPort,
  input: { from: string; to: string; text: string; parentTask: Task | null; trace?: TraceCarrier | undefined },
): Task {
  if (input.to !== 'user') society.requireLive(input.to);
  const task = createTask(
    {
      from: input.from,
      to: input.to,
      action: Actions.message,
      parameters: { text: input.text },
      parentId: input.parentTask?.id ?? null,
      sessionId: input.parentTask?.sessionId,
      ...(input.trace === undefined ? {} : { metadata: carrierFields(input.trace) }),
    },
    society,
  );
  society.bus.publish(task);
  return task;
}

/**
 * Sends `text` to `to` as work and resolves with its final reply (or rejects on timeout or abort);
 * `metadata` goes with the work (why it went there), and so does `trace`, the delegating call's
 * trace context, so the delegate's turn joins the trace wherever it runs.
 */
export function delegateTask(
  society: SocietyPort,
  input: {
    from: string;
    to: string;
    text: string;
    parentTask: Task;
    timeoutMs: number;
    signal: AbortSignal;
    metadata?: TaskMetadata;
    trace?: TraceCarrier | undefined;
  },
): Promise<Task> {
  if (input.to === input.from) return Promise.reject(new TroupeError('invalid_input', 'an agent cannot delegate to itself'));
  try {
    society.requireLive(input.to);
  } catch (error) {
    return Promise.reject(error);
  }
  const task = createTask(
    {
      from: input.from,
      to: input.to,
      action: Actions.execute,
      parameters: { text: input.text },
      parentId: input.parentTask.id,
      sessionId: input.parentTask.sessionId,
      ...(input.metadata === undefined && input.trace === undefined ? {} : { metadata: { ...input.metadata, ...carrierFields(input.trace) } }),
    },
    society,
  );
  // The delegating turn stopped (canceled, terminated, out of time) or gave up waiting: the work it
  // gave is taken back, so the delegate stops too rather than work on for nobody.
  const reply = society.bus.request(task, { timeoutMs: input.timeoutMs, signal: input.signal });
  let takenBack = false;
  const takeBack = (why: string): void => {
    if (takenBack) return;
    takenBack = true;
    society.bus.publish(cancelNotice(society, task, why));
  };
  const stopWatching = onAbort(input.signal, () => takeBack(`the delegating turn was stopped: ${describeError(input.signal.reason)}`));
  return reply
    .catch((error: unknown) => {
      if (error instanceof RequestTimeoutError) takeBack(`the delegating turn stopped waiting after ${input.timeoutMs} ms`);
      throw error;
    })
    .finally(stopWatching);
}

/** The notice by which the giver of `task` takes it back (see `Actions.cancel`), saying why. */
function cancelNotice(society: SocietyPort, task: Task, why: string): Task {
  return createTask(
    {
      from: task.from,
      to: task.to,
      action: Actions.cancel,
      status: 'completed',
      parameters: { reason: why },
      parentId: task.id,
      sessionId: task.sessionId,
    },
    society,
  );
}

/** Shortens `agentId`'s own conversation in `sessionId` (the session of the turn calling it); `messages` is its length afterwards. */
export function compressContext(
  society: SocietyPort,
  input: { agentId: string; sessionId: string; summary: string; keepRecent: number },
): { removed: number; kept: number; messages: number } {
  const conversation = society.conversationOf(input.agentId, input.sessionId);
  const { removed, kept } = conversation.compress(input.summary, input.keepRecent);
  return { removed, kept, messages: conversation.length };
}

/** Publishes each step as a `plan.step` Task from `agentId` to itself under `parentTask`, in order. */
export function recordPlan(society: SocietyPort, input: { agentId: string; goal: string; steps: readonly PlanStepInput[]; parentTask: Task }): RecordedPlan {
  // The agent's own turn: a draining agent still plans the work it is finishing.
  society.requireRunning(input.agentId);
  const tasks = input.steps.map((step, index) =>
    createTask(
      {
        from: input.agentId,
        to: input.agentId,
        action: Actions.planStep,
        parameters: { goal: input.goal, index, title: step.title, detail: step.detail ?? null },
        parentId: input.parentTask.id,
        sessionId: input.parentTask.sessionId,
      },
      society,
    ),
  );
  // Made (and validated) before any is published, so a plan is recorded whole or not at all.
  for (const task of tasks) society.bus.publish(task);
  return { planId: input.parentTask.id, steps: tasks.map((task, index) => ({ taskId: task.id, index, title: input.steps[index]?.title ?? '' })) };
}

/**
 * Routes work described by a role or in words (see `SocietyPort.routeWork`) and publishes the
 * decision as a `routing.decided` Task from the caller to itself under the delegating turn, so
 * the message log shows why the work went where it went, or why it went nowhere.
 */
export async function routeAndRecord(society: SocietyPort, request: WorkRequest): Promise<RoutedWork> {
  const routed = await society.routeWork(request);
  const record = createTask(
    {
      from: request.from,
      to: request.from,
      action: Actions.routed,
      parameters: { text: routed.summary, reason: routed.reason, decision: routed.decision, agentId: routed.agentId, spawned: routed.spawned },
      parentId: request.parentTask.id,
      sessionId: request.parentTask.sessionId,
      metadata: { routing: routed.decision },
    },
    society,
  );
  society.bus.publish(record);
  return routed;
}
