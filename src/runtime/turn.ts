import { setMaxListeners } from 'node:events';
import { TroupeError } from '../errors.js';
import { ImportanceTagStripper, type ToolCall, collectReply, readImportance } from '../llm/index.js';
import { Actions, type Task, observationTask, taskAsPrompt } from '../task/index.js';
import { type ToolResult, errorResult, runToolCall } from '../tools/index.js';
import type { ThinkOutput, TurnEvent, TurnInput } from '../../machines/agent.machine.js';
import type { AgentHost } from './agentBehaviour.js';
import type { AgentCell } from './agentCell.js';
import { judgeRepeat, repeatMessage } from './repeatGuard.js';
import { type ResumePoint, resumePoint } from './resume.js';

function cellOf(host: AgentHost, agentId: string): AgentCell {
  const cell = host.cell(agentId);
  if (cell === undefined) throw new Error(`agent ${agentId} has no live cell`);
  return cell;
}

/**
 * Publishes an observation about the turn on `task` (thinking text, a tool call), addressed to
 * no one in particular; not even made when nobody would see it.
 */
function observe(host: AgentHost, agentId: string, task: Task, action: string, parameters: Record<string, string | number>): void {
  if (host.bus.wants('observer', action)) host.bus.publish(observationTask({ from: agentId, about: task, action, parameters }, host));
}

/**
 * One model call of a ReAct turn: streams the reply (each visible fragment published as
 * `node.thinking`), records it in the conversation, and says whether tools come next.
 * `<imp:X/>` tags are stripped from everything shown and returned as importance.
 */
export async function think(host: AgentHost, input: TurnInput, signal: AbortSignal): Promise<ThinkOutput> {
  const cell = cellOf(host, input.agentId);
  // A resumed turn's prompt is already in the conversation, and its repeat tally was rebuilt.
  if (input.step === 0 && !input.resuming) {
    cell.turnCalls.clear();
    cell.conversation.append({ role: 'user', content: taskAsPrompt(input.task) });
  }
  host.warnIfLong(input.agentId, input.task);
  const stripper = new ImportanceTagStripper();
  const show = (text: string): void => {
    if (text !== '') observe(host, input.agentId, input.task, Actions.thinking, { text });
  };
  const stream = host.model.chat({ messages: cell.conversation.messages, tools: host.tools.definitions(cell.role.tools) }, { signal });
  const reply = await collectReply(
    stream,
    (text) => show(stripper.push(text)),
    (attempt) => {
      stripper.flush();
      observe(host, input.agentId, input.task, Actions.thinking, { text: '', restart: attempt });
    },
  );
  show(stripper.flush());
  signal.throwIfAborted();

  cell.usage.calls += 1;
  cell.usage.promptTokens += reply.usage?.promptTokens ?? 0;
  cell.usage.completionTokens += reply.usage?.completionTokens ?? 0;
  host.logger.debug({ agentId: input.agentId, taskId: input.task.id, step: input.step, model: host.model.name, ...reply.usage }, 'model call');

  const { text, importance } = readImportance(reply.message.content);
  cell.conversation.append({ ...reply.message, content: text });
  cell.pendingCalls = reply.message.toolCalls;
  if (reply.message.toolCalls.length > 0) return { kind: 'tools', calls: reply.message.toolCalls.length };
  return importance === undefined ? { kind: 'answer', text } : { kind: 'answer', text, importance };
}

/**
 * Runs the tool calls the last model reply asked for, independent calls in parallel, and feeds
 * each result back as soon as it is in, so a result that was stored is never run again after a
 * crash. A call repeated `maxRepeatedToolCalls` times is refused with the reason; repeated once
 * more, the turn stops (`repeat_guard`).
 */
export async function act(host: AgentHost, input: TurnInput, signal: AbortSignal): Promise<undefined> {
  const cell = cellOf(host, input.agentId);
  const calls = cell.pendingCalls;
  cell.pendingCalls = [];
  const limit = host.config.maxRepeatedToolCalls;
  const verdicts = calls.map((call) => judgeRepeat(cell.turnCalls, call, limit));
  for (const call of calls) {
    observe(host, input.agentId, input.task, Actions.toolCall, { tool: call.name, arguments: call.arguments });
  }

  const context = { agentId: input.agentId, task: input.task, signal, society: host.port };
  const options = { registry: host.tools, policy: cell.role.tools, defaultTimeoutMs: host.config.toolTimeoutMs, clock: host.clock };
  const stopped = verdicts.includes('stop');
  // Every tool call gets its result, even when the turn stops, so the conversation stays valid.
  const feedBack = (call: ToolCall) => (result: ToolResult): void => {
    if (!signal.aborted) cell.conversation.append({ role: 'tool', toolCallId: call.id, name: call.name, content: result.content });
  };
  await Promise.all(
    calls.map((call, i): Promise<void> => {
      if (stopped) return Promise.resolve(errorResult(`not run: the turn was stopped because ${call.name} kept being repeated`, 'repeat_guard')).then(feedBack(call));
      if (verdicts[i] === 'refuse') return Promise.resolve(errorResult(repeatMessage(call.name, limit), 'repeat_guard')).then(feedBack(call));
      return runToolCall(call, context, options).then(feedBack(call));
    }),
  );
  signal.throwIfAborted();
  if (stopped) {
    const repeated = calls.find((_, i) => verdicts[i] === 'stop')?.name ?? 'a tool';
    throw new TroupeError('repeat_guard', `turn stopped: ${repeated} was called with the same arguments more than ${limit} times`, {
      context: { agentId: input.agentId, taskId: input.task.id },
    });
  }
  return undefined;
}

/**
 * Picks up a turn a restart interrupted: rebuilds its repeat tally from the conversation and
 * queues the calls whose results were never stored; those that were are not run again. Should
 * the conversation no longer show the turn, it starts over from the prompt.
 */
function resumeTurn(host: AgentHost, input: TurnInput): Pick<ResumePoint, 'answer' | 'unanswered'> {
  const cell = cellOf(host, input.agentId);
  cell.turnCalls.clear();
  const point = resumePoint(cell.conversation.messages, input.task);
  if (point === null) {
    host.logger.warn({ agentId: input.agentId, taskId: input.task.id }, 'interrupted turn not found in the conversation; starting it over');
    cell.conversation.append({ role: 'user', content: taskAsPrompt(input.task) });
    return { unanswered: [] };
  }
  for (const call of point.done) judgeRepeat(cell.turnCalls, call, host.config.maxRepeatedToolCalls);
  cell.pendingCalls = point.unanswered;
  host.logger.info({ agentId: input.agentId, taskId: input.task.id, step: point.step, rerun: point.unanswered.length }, 'resuming an interrupted turn');
  return point;
}

/** The reason a turn's signal is aborted when the machine leaves the turn; made once, not per turn. */
const turnLeft = Object.freeze(new Error('the agent left the turn (it ended, hit the step limit or was terminated)'));

/**
 * Runs a whole ReAct turn (think → act → observe, repeated) and reports every phase change to
 * the agent machine. The machine owns the decisions: after each report it may leave the turn
 * (step limit, termination), which calls the returned stop function; the loop checks its signal
 * after every report and starts nothing once stopped.
 */
export function runTurn(host: AgentHost, input: TurnInput, report: (event: TurnEvent) => void): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  // The openai SDK leaves one abort listener per request on the signal it is given; a turn makes
  // at most maxSteps requests, and the listeners go with the turn, so the bound is known.
  setMaxListeners(host.config.maxSteps * 4 + 16, signal);
  // Read through a function: each report may stop the turn synchronously, so the flag changes under us.
  const stopped = (): boolean => signal.aborted;
  // Set just before the last report: the turn has nothing in flight, so leaving it needs no
  // abort, which would wake the abort listener every model request of the turn left behind.
  let over = false;
  const end = (event: TurnEvent): void => {
    over = true;
    report(event);
  };
  void (async () => {
    try {
      let step = input.step;
      // One round of tools, reported on both sides; false once the machine has left the turn.
      const toolStep = async (calls: number): Promise<boolean> => {
        report({ type: 'turn.tools', calls });
        if (stopped()) return false;
        await act(host, { ...input, step }, signal);
        if (stopped()) return false;
        report({ type: 'turn.observed', step });
        return !stopped();
      };
      if (input.resuming) {
        const point = resumeTurn(host, input);
        if (point.answer !== undefined) {
          end({ type: 'turn.answered', text: point.answer });
          return;
        }
        if (point.unanswered.length > 0) {
          if (!(await toolStep(point.unanswered.length))) return;
          step++;
        }
      }
      for (; !stopped(); step++) {
        const outcome = await think(host, { ...input, step }, signal);
        if (stopped()) return;
        if (outcome.kind === 'answer') {
          end(outcome.importance === undefined ? { type: 'turn.answered', text: outcome.text } : { type: 'turn.answered', text: outcome.text, importance: outcome.importance });
          return;
        }
        if (!(await toolStep(outcome.calls))) return;
      }
    } catch (error) {
      if (!stopped()) end({ type: 'turn.failed', error });
    }
  })();
  return () => {
    if (!over) controller.abort(turnLeft);
  };
}
