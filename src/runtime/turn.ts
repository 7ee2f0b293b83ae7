import { setMaxListeners } from 'node:events';
import { TroupeError } from '../errors.js';
import { ImportanceTagStripper, collectReply, readImportance } from '../llm/index.js';
import { Actions, type Task, observationTask, taskAsPrompt } from '../task/index.js';
import { type ToolResult, errorResult, runToolCall } from '../tools/index.js';
import type { ThinkOutput, TurnEvent, TurnInput } from '../../machines/agent.machine.js';
import type { AgentHost } from './agentBehaviour.js';
import type { AgentCell } from './agentCell.js';
import { judgeRepeat, repeatMessage } from './repeatGuard.js';

function cellOf(host: AgentHost, agentId: string): AgentCell {
  const cell = host.cell(agentId);
  if (cell === undefined) throw new Error(`agent ${agentId} has no live cell`);
  return cell;
}

/** An observation Task about the turn on `task` (thinking text, a tool call): addressed to no one in particular. */
function observation(host: AgentHost, agentId: string, task: Task, action: string, parameters: Record<string, string | number>): Task {
  return observationTask({ from: agentId, about: task, action, parameters }, host);
}

/**
 * One model call of a ReAct turn: streams the reply (each visible fragment published as
 * `node.thinking`), records it in the conversation, and says whether tools come next.
 * `<imp:X/>` tags are stripped from everything shown and returned as importance.
 */
export async function think(host: AgentHost, input: TurnInput, signal: AbortSignal): Promise<ThinkOutput> {
  const cell = cellOf(host, input.agentId);
  if (input.step === 0) {
    cell.turnCalls.clear();
    cell.conversation.append({ role: 'user', content: taskAsPrompt(input.task) });
  }
  host.warnIfLong(input.agentId, input.task);
  const stripper = new ImportanceTagStripper();
  const show = (text: string): void => {
    if (text !== '') host.bus.publish(observation(host, input.agentId, input.task, Actions.thinking, { text }));
  };
  const stream = host.model.chat({ messages: cell.conversation.messages, tools: host.tools.definitions(cell.role.tools) }, { signal });
  const reply = await collectReply(
    stream,
    (text) => show(stripper.push(text)),
    (attempt) => {
      stripper.flush();
      host.bus.publish(observation(host, input.agentId, input.task, Actions.thinking, { text: '', restart: attempt }));
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
 * each result back in the order asked. A call repeated `maxRepeatedToolCalls` times is refused
 * with the reason; repeated once more, the turn stops (`repeat_guard`).
 */
export async function act(host: AgentHost, input: TurnInput, signal: AbortSignal): Promise<undefined> {
  const cell = cellOf(host, input.agentId);
  const calls = cell.pendingCalls;
  cell.pendingCalls = [];
  const limit = host.config.maxRepeatedToolCalls;
  const verdicts = calls.map((call) => judgeRepeat(cell.turnCalls, call, limit));
  for (const call of calls) {
    host.bus.publish(observation(host, input.agentId, input.task, Actions.toolCall, { tool: call.name, arguments: call.arguments }));
  }

  const context = { agentId: input.agentId, task: input.task, signal, society: host.port };
  const options = { registry: host.tools, policy: cell.role.tools, defaultTimeoutMs: host.config.toolTimeoutMs, clock: host.clock };
  const stopped = verdicts.includes('stop');
  const results: ToolResult[] = await Promise.all(
    calls.map((call, i) => {
      if (stopped) return Promise.resolve(errorResult(`not run: the turn was stopped because ${call.name} kept being repeated`, 'repeat_guard'));
      if (verdicts[i] === 'refuse') return Promise.resolve(errorResult(repeatMessage(call.name, limit), 'repeat_guard'));
      return runToolCall(call, context, options);
    }),
  );
  signal.throwIfAborted();
  // Every tool call gets its result, even when the turn stops, so the conversation stays valid.
  cell.conversation.append(...calls.map((call, i) => ({ role: 'tool' as const, toolCallId: call.id, name: call.name, content: results[i]?.content ?? '' })));
  if (stopped) {
    const repeated = calls.find((_, i) => verdicts[i] === 'stop')?.name ?? 'a tool';
    throw new TroupeError('repeat_guard', `turn stopped: ${repeated} was called with the same arguments more than ${limit} times`, {
      context: { agentId: input.agentId, taskId: input.task.id },
    });
  }
  return undefined;
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
      for (let step = input.step; !stopped(); step++) {
        const outcome = await think(host, { ...input, step }, signal);
        if (stopped()) return;
        if (outcome.kind === 'answer') {
          end(outcome.importance === undefined ? { type: 'turn.answered', text: outcome.text } : { type: 'turn.answered', text: outcome.text, importance: outcome.importance });
          return;
        }
        report({ type: 'turn.tools', calls: outcome.calls });
        if (stopped()) return;
        await act(host, { ...input, step }, signal);
        if (stopped()) return;
        report({ type: 'turn.observed' });
      }
    } catch (error) {
      if (!stopped()) end({ type: 'turn.failed', error });
    }
  })();
  return () => {
    if (!over) controller.abort(turnLeft);
  };
}
