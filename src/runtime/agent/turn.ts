import { setMaxListeners } from 'node:events';
import type { ThinkOutput, TurnEvent, TurnInput } from '../../../machines/agent.machine.js';
import { TroupeError } from '../../errors.js';
import { type CollectedReply, collectReply, readImportance, toModelError } from '../../llm/index.js';
import { Actions, type Task, type TaskUsage, type ToolCall } from '../../task/index.js';
import { type ToolResult, errorResult, runToolCall } from '../../tools/index.js';
import type { Agent } from './agent.js';
import { changesTheWorld } from './changesTheWorld.js';
import { judgeRepeat, repeatMessage } from './repeatGuard.js';
import { resumePoint } from './resume.js';
import { skillsBeforeModel } from './skillsBeforeModel.js';
import type { TurnContext } from './context/sessionContexts.js';
import { callsOverCap, overCapResult } from './toolCallCap.js';
import { keepToolResult } from './toolOutcome.js';
import { type AcceptedHandoff, handoffDecision, isHandoffCall, runHandoffCalls } from './handoffCalls.js';
import { ThinkingStream, observe } from './thinkingStream.js';
import { passApproval } from './approvalGate.js';
import { type PauseHooks, StepApprovals } from './stepPause.js';
import { TurnBudget } from './turnBudget.js';
import { timeBudgetSpent, tokenBudgetSpent, unknownModel } from './turnStops.js';
import { answerToSend, modelReply, modelRequest, startTurn, toolCallToRun, toolResultToKeep } from './interceptors/turnHooks.js';
import { TurnTrace } from './turnTrace.js';

/** What a turn carries from one step to the next. */
interface TurnState {
  /** The context of the turn's session (its lane's): what the model is sent, where the steps go. */
  readonly context: TurnContext;
  /** Tool calls the last model reply asked for, run by the next `act`. */
  pending: readonly ToolCall[];
  /** Those of the last reply's calls past `maxToolCallsPerReply`: the next `act` answers them with a refusal. */
  overCap: ReadonlySet<ToolCall>;
  /** How often each (tool, arguments) was called in this turn, for the repeat guard. */
  readonly calls: Map<string, number>;
  /** Tokens the turn's model calls used so far (prompt + completion), against `maxTaskTokens`. */
  tokens: number;
  /** The same, as the providers reported them, for the answer's `metadata.usage`; null while none reported any. */
  usage: TaskUsage | null;
  /** A handoff the last tool step's calls made: the turn ends with it once the step is done. */
  handoff: AcceptedHandoff | null;
  /** The text of the reply that is the answer, as observers are to see it once the answer may leave. */
  thinking: ThinkingStream | null;
  /** What pauses the lane while calls of a step (of this many calls) wait for a person's approval. */
  readonly approvalsOf: (calls: number) => StepApprovals;
  /** The turn's spans (no-ops while nothing traces). */
  readonly trace: TurnTrace;
}

/**
 * One model call of a ReAct turn: streams the reply (each visible fragment published as
 * `node.thinking`), records it in the conversation, and says whether tools come next.
 * `<imp:X/>` tags are stripped from everything shown and returned as importance.
 */
async function think(agent: Agent, turn: TurnState, input: TurnInput, step: number, signal: AbortSignal): Promise<ThinkOutput> {
  const { env } = agent;
  const { context } = turn;
  // A resumed turn's prompt is already in the context.
  if (step === 0 && !input.resuming) {
    await startTurn(agent, input.task, signal);
    await context.begin(input.task);
    const answered = await skillsBeforeModel(agent, input.task, context, signal);
    if (answered !== null) return answered;
  }
  // Memory was read meanwhile: a turn stopped during it (a budget, a termination) calls no model.
  signal.throwIfAborted();
  agent.fitTurn(input.task);
  const warning = agent.warnIfLong(input.task);
  const thinking = new ThinkingStream(agent, input.task, agent.interceptors.holdsAnswers());
  let reply: CollectedReply;
  const { model, limits } = agent.settings;
  if (model === null) throw unknownModel(agent);
  try {
    const messages = await modelRequest(agent, input.task, context.request(warning), signal);
    // Each attempt of the call is observed below the retry layer, for the metrics and the call's span.
    const watcher = turn.trace.chat(model.name, messages);
    const stream = model.chat({ messages, tools: agent.toolDefinitions(input.task.sessionId) }, watcher === undefined ? { signal } : { signal, watcher });
    reply = await collectReply(
      stream,
      (text) => thinking.push(text),
      (attempt) => thinking.restart(attempt),
    );
  } catch (error) {
    // Whatever the client, a failed model call reaches the user as model_error (aborts stay aborts).
    throw toModelError(error, model.name, signal);
  }
  thinking.end();
  signal.throwIfAborted();

  agent.usage.calls += 1;
  agent.usage.promptTokens += reply.usage?.promptTokens ?? 0;
  agent.usage.completionTokens += reply.usage?.completionTokens ?? 0;
  env.logger.debug({ agentId: agent.id, taskId: input.task.id, step, model: model.name, ...reply.usage }, 'model call');
  turn.tokens += (reply.usage?.promptTokens ?? 0) + (reply.usage?.completionTokens ?? 0);
  if (reply.usage !== undefined) {
    const { promptTokens, completionTokens } = turn.usage ?? { promptTokens: 0, completionTokens: 0 };
    turn.usage = { promptTokens: promptTokens + reply.usage.promptTokens, completionTokens: completionTokens + reply.usage.completionTokens };
  }
  if (turn.tokens > limits.maxTaskTokens) throw tokenBudgetSpent(agent, input.task, turn.tokens);

  const message = await modelReply(agent, input.task, reply.message, signal);
  const { text, importance } = readImportance(message.content);
  context.append({ ...message, content: text });
  turn.pending = message.toolCalls;
  turn.overCap = callsOverCap(message.toolCalls, limits.maxToolCallsPerReply);
  if (message.toolCalls.length > 0) {
    thinking.release();
    return { kind: 'tools', calls: message.toolCalls.length };
  }
  turn.thinking = thinking;
  return importance === undefined ? { kind: 'answer', text } : { kind: 'answer', text, importance };
}

/**
 * Runs the tool calls the last model reply asked for, independent calls in parallel, and feeds
 * each result back as soon as it is in. A call past the reply's first `maxToolCallsPerReply` is
 * not run but refused (`tool_call_limit`). A call repeated `maxRepeatedToolCalls` times is
 * refused with the reason; repeated once more, the turn stops (`repeat_guard`).
 */
async function act(agent: Agent, turn: TurnState, task: Task, signal: AbortSignal): Promise<void> {
  const { env } = agent;
  const { context: conversation, overCap } = turn;
  // Handoffs run after the reply's other tools, so their results are kept whatever the handoff does.
  const handoffs = turn.pending.filter((call) => isHandoffCall(agent, call) && !overCap.has(call));
  const calls = turn.pending.filter((call) => !handoffs.includes(call));
  turn.pending = [];
  turn.overCap = new Set();
  const cap = agent.settings.limits.maxToolCallsPerReply;
  const limit = env.config.maxRepeatedToolCalls;
  const verdicts = calls.map((call) => (overCap.has(call) ? 'run' : judgeRepeat(turn.calls, call, limit)));
  const approvals = turn.approvalsOf(calls.length);
  for (const call of calls) if (!overCap.has(call)) observe(agent, task, Actions.toolCall, { tool: call.name, arguments: call.arguments });

  const context = { agentId: agent.id, task, signal, society: env.society, ...(env.remoteRoles === undefined ? {} : { remoteRoles: env.remoteRoles }) };
  const options = { registry: env.tools, policy: agent.toolPolicy(task.sessionId), defaultTimeoutMs: env.config.toolTimeoutMs, clock: env.clock };
  const stopped = verdicts.includes('stop');
  // Every tool call gets its result, even when the turn stops, so the conversation stays valid.
  const feedBack =
    (call: ToolCall) =>
    (result: ToolResult): void => {
      if (!signal.aborted) conversation.append({ role: 'tool', toolCallId: call.id, name: call.name, content: result.content });
    };
  // A call refused before it runs still has its span, failed with the refusal's code.
  const refuse = (call: ToolCall, refusal: ToolResult): Promise<void> =>
    Promise.resolve(refusal).then((result) => {
      turn.trace.refused(call, result);
      feedBack(call)(result);
    });
  const stepCall = (call: ToolCall): Promise<void> => {
    const traced = turn.trace.tool(call);
    const traceContext = traced.carrier === undefined ? context : { ...context, trace: traced.carrier, tracer: env.tracing.tracer };
    return toolCallToRun(agent, task, call, signal)
      .then((decided) => ('refused' in decided ? decided : passApproval(agent, task, decided.run, signal, approvals)))
      .then((gate) =>
        'refused' in gate
          ? gate.refused
          : traced.run(() => runToolCall(gate.run, traceContext, options)).then((result) => (gate.edited ? ranEdited(gate.run, result) : result)),
      )
      .then((result) => toolResultToKeep(agent, task, call, result, signal))
      .then((result) => keepToolResult(agent, task, call, result))
      .then(
        (result) => {
          traced.ended(result);
          feedBack(call)(result);
        },
        (error: unknown) => {
          traced.failed(error);
          throw error;
        },
      );
  };
  await Promise.all(
    calls
      .map((call, i): Promise<void> => {
        if (overCap.has(call)) return refuse(call, overCapResult(cap + overCap.size, cap));
        if (stopped) return refuse(call, errorResult(`not run: the turn was stopped because ${call.name} kept being repeated`, 'repeat_guard'));
        if (verdicts[i] === 'refuse') return refuse(call, errorResult(repeatMessage(call.name, limit), 'repeat_guard'));
        return stepCall(call);
      })
      .map((done) => done.finally(() => approvals.finished())),
  );
  signal.throwIfAborted();
  const feed = (call: ToolCall, result: ToolResult): void => feedBack(call)(result);
  if (stopped) for (const call of handoffs) feed(call, errorResult(`not handed over: the turn was stopped`, 'repeat_guard'));
  else turn.handoff = await runHandoffCalls(agent, task, handoffs, feed);
  signal.throwIfAborted();
  if (stopped) {
    const repeated = calls.find((_, i) => verdicts[i] === 'stop')?.name ?? 'a tool';
    throw new TroupeError('repeat_guard', `turn stopped: ${repeated} was called with the same arguments more than ${limit} times`, {
      context: { agentId: agent.id, taskId: task.id },
    });
  }
}

/** What the model reads of a call a person let run with other arguments: which, then the result. */
function ranEdited(call: ToolCall, result: ToolResult): ToolResult {
  return { ...result, content: `A person edited this call's arguments before it ran; it ran with ${call.arguments}\n${result.content}` };
}

/**
 * Picks up a turn a restart interrupted: rebuilds its repeat tally from the conversation and
 * queues the calls whose results were never stored; those that were are not run again. Should
 * the conversation no longer show the turn, it starts over from the prompt. Returns the stored
 * answer when the turn had finished but its reply was never sent.
 */
async function resumeTurn(agent: Agent, turn: TurnState, task: Task): Promise<{ answer?: string }> {
  const { env } = agent;
  const { context } = turn;
  const point = resumePoint(context.steps, task);
  if (point === null) {
    env.logger.warn({ agentId: agent.id, taskId: task.id }, "interrupted turn not found in its session's context; starting it over");
    await context.begin(task);
    return {};
  }
  await context.resume(task);
  for (const call of point.done) judgeRepeat(turn.calls, call, env.config.maxRepeatedToolCalls);
  turn.pending = point.unanswered;
  turn.overCap = callsOverCap(point.lastCalls, agent.settings.limits.maxToolCallsPerReply);
  env.logger.info({ agentId: agent.id, taskId: task.id, step: point.step, rerun: point.unanswered.length }, 'resuming an interrupted turn');
  return point.answer === undefined ? {} : { answer: point.answer };
}

/** The turn's time budget, which stands still while the lane is paused for a person, and the hooks that pause the lane. */
function budgetAndPause(
  agent: Agent,
  task: Task,
  report: (event: TurnEvent) => void,
  stopped: () => boolean,
  spent: (error: TroupeError) => void,
): { budget: TurnBudget; pause: PauseHooks } {
  const { sessionId } = task;
  const budget = new TurnBudget(agent.env.clock, agent.settings.limits.maxTaskMs, () => spent(timeBudgetSpent(agent, task)));
  const pause: PauseHooks = {
    durable: () => agent.env.journal.durable(),
    paused: (approvals) => {
      budget.pause();
      report({ type: 'turn.awaiting', sessionId, approvals });
    },
    resumed: () => {
      budget.resume();
      report({ type: 'turn.resumed', sessionId });
    },
    stopped,
  };
  return { budget, pause };
}

/** A turn's state as it starts, its steps pausing the lane through `pause` while calls wait for approval. */
function newTurnState(agent: Agent, task: Task, pause: PauseHooks): TurnState {
  const model = agent.settings.model?.name;
  return {
    trace: new TurnTrace(agent.env.tracing, { id: agent.id, role: agent.role.name, model }, task),
    context: agent.context(task.sessionId),
    pending: [],
    overCap: new Set(),
    calls: new Map(),
    tokens: 0,
    usage: null,
    handoff: null,
    thinking: null,
    approvalsOf: (calls) => new StepApprovals(calls, pause),
  };
}

/** A turn's answer as its machine hears it: the text, with its importance and the turn's token usage when there are. */
function answeredEvent(sessionId: string, text: string, importance: number | undefined, usage: TaskUsage | null): TurnEvent {
  return { type: 'turn.answered', sessionId, text, ...(importance === undefined ? {} : { importance }), ...(usage === null ? {} : { usage }) };
}

/** The reason a turn's signal is aborted when the machine leaves the turn; made once, not per turn. */
const turnLeft = Object.freeze(new Error('the agent left the turn (it ended, hit the step limit or was terminated)'));

/**
 * Runs a whole ReAct turn of `agent` in the lane of the Task's session (think → act → observe,
 * repeated, in that session's context) and reports every phase change to its machine, naming the lane. The machine owns the decisions: after each report it may leave the turn
 * (step limit, termination), which calls the returned stop function; the loop checks its signal
 * after every report and starts nothing once stopped. What the turn wrote is durable before the
 * next tool runs and before the answer leaves; the write of a step overlaps the next model call.
 *
 * @internal
 */
export function runTurn(agent: Agent, input: TurnInput, report: (event: TurnEvent) => void): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  const { journal } = agent.env;
  // The openai SDK leaves one abort listener per request on the signal it is given; a turn makes
  // at most maxSteps requests, and the listeners go with the turn, so the bound is known.
  const { limits } = agent.settings;
  setMaxListeners(limits.maxSteps * 4 + 16, signal);
  // Read through a function: each report may stop the turn synchronously, so the flag changes under us.
  const stopped = (): boolean => signal.aborted;
  // Set just before the last report: the turn has nothing in flight, so leaving it needs no
  // abort, which would wake the abort listener every model request of the turn left behind.
  let over = false;
  const end = (event: TurnEvent): void => {
    over = true;
    turn.trace.ended(event);
    report(event);
  };
  const { sessionId } = input.task;
  // The Task's time budget: when it runs out, whatever the turn is doing is aborted and the turn fails.
  const { budget, pause } = budgetAndPause(agent, input.task, report, stopped, (error) => {
    if (over || stopped()) return;
    controller.abort(error);
    end({ type: 'turn.failed', sessionId, error });
  });
  const turn = newTurnState(agent, input.task, pause);
  // What the last step that changed the world wrote (its results, and everything before): durable
  // before the next tool runs, its commit overlapping the model call in between rather than adding
  // to it. Null after a step whose tools were all read-only or idempotent: its records wait for the
  // next commit, since running such a step again after a crash changes nothing. At first, the
  // Task itself: a user's is handed over once committed, its fsync overlapping the first model
  // call (Journal.userInput), and the first step that changes the world waits for it.
  let stepWritten: Promise<void> | null = journal.accepted(input.task.id);
  let lastStepChanged = false;
  // The answer leaves only once the turn is on disk, so a restart never answers the Task twice.
  const answer = async (written: string, importance?: number): Promise<void> => {
    const text = await answerToSend(agent, input.task, written, signal);
    // A replaced answer leaves as its replacement only; what the model wrote is not shown.
    if (text === written) turn.thinking?.release();
    await journal.durable();
    if (!stopped()) end(answeredEvent(sessionId, text, importance, turn.usage));
  };
  void (async () => {
    try {
      let step = input.step;
      // One round of tools, reported on both sides; false once the machine has left the turn.
      const toolStep = async (calls: number): Promise<boolean> => {
        report({ type: 'turn.tools', sessionId, calls });
        // A finished tool that changed the world has its result on disk before another tool runs,
        // and a tool about to change it runs only once everything before is on disk, so a crash
        // never runs it again; steps of read-only or idempotent tools alone wait for nothing.
        const changes = journal.persistent && changesTheWorld(turn.pending, agent.env.tools, agent.settings.tools);
        if (changes || lastStepChanged) await (stepWritten ?? journal.durable());
        if (stopped()) return false;
        await act(agent, turn, input.task, signal);
        lastStepChanged = changes;
        if (changes) {
          stepWritten = journal.durable();
          // The commit starts in the event loop's next check phase: let it, before the model call
          // whose request would otherwise go first and push it back by the request's work.
          await journal.committing();
        } else stepWritten = null;
        if (stopped()) return false;
        if (turn.handoff !== null) {
          end({ type: 'turn.handedOff', sessionId, handoff: handoffDecision(agent, turn.context, input.task, turn.handoff) });
          return false;
        }
        report({ type: 'turn.observed', sessionId, step });
        return !stopped();
      };
      if (input.resuming) {
        const resumed = await resumeTurn(agent, turn, input.task);
        if (resumed.answer !== undefined) {
          await answer(resumed.answer);
          return;
        }
        if (turn.pending.length > 0) {
          if (!(await toolStep(turn.pending.length))) return;
          step++;
        }
      }
      for (; !stopped(); step++) {
        const outcome = await think(agent, turn, input, step, signal);
        if (stopped()) return;
        if (outcome.kind === 'answer') {
          await answer(outcome.text, outcome.importance);
          return;
        }
        if (!(await toolStep(outcome.calls))) return;
      }
    } catch (error) {
      if (!stopped()) end({ type: 'turn.failed', sessionId, error });
    }
  })();
  return () => {
    budget.clear();
    turn.trace.close();
    if (!over) controller.abort(turnLeft);
  };
}
