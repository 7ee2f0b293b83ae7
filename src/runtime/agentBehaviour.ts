import type { Clock } from '../clock.js';
import type { EventBus } from '../bus/index.js';
import { describeError, errorCodeOf } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Logger } from '../logger.js';
import { type ModelClient, collectReply } from '../llm/index.js';
import { Actions, type Task, createTask, replyTo, taskAsPrompt } from '../task/index.js';
import { type SocietyPort, type ToolRegistry, runToolCall } from '../tools/index.js';
import { fromPromise } from 'xstate';
import { type ThinkOutput, type TurnInput, agentMachine } from '../../machines/agent.machine.js';
import type { AgentCell } from './agentCell.js';
import type { RuntimeConfig } from './config.js';

/** The shared services every agent of a runtime works with. */
export interface AgentServices {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly config: RuntimeConfig;
}

/** What the agent machine's implementations reach for; the society provides it. */
export interface AgentHost extends AgentServices {
  readonly port: SocietyPort;
  cell(agentId: string): AgentCell | undefined;
  parentOf(agentId: string): string | null;
  /** Frees what the agent held (inbox, conversation, registry entry). */
  release(agentId: string, reason: string): Promise<void>;
}

/** The agent machine with troupe's implementations, made once per runtime. */
export function provideAgentMachine(host: AgentHost) {
  const deps = { ids: host.ids, clock: host.clock };
  const publish = (task: Task): void => host.bus.publish(task);
  const cellOf = (agentId: string): AgentCell => {
    const cell = host.cell(agentId);
    if (cell === undefined) throw new Error(`agent ${agentId} has no live cell`);
    return cell;
  };
  // An action that throws would stop the actor; one agent's failure must never stop it or another.
  const guarded = <P>(name: string, body: (params: P) => void) => (_: unknown, params: P): void => {
    try {
      body(params);
    } catch (error) {
      host.logger.error({ action: name, error: describeError(error) }, 'agent action failed');
    }
  };
  const notice = (agentId: string, action: string, parameters: Record<string, string | number>, task: Task | null): void => {
    publish(createTask({
      from: agentId,
      to: host.parentOf(agentId) ?? 'runtime',
      action,
      status: 'completed',
      parameters,
      parentId: task?.id ?? null,
      sessionId: task?.sessionId,
    }, deps));
  };

  const thinkingTask = (agentId: string, task: Task, text: string): Task =>
    createTask({
      from: agentId,
      to: 'observer',
      action: Actions.thinking,
      status: 'working',
      parameters: { text },
      parentId: task.id,
      sessionId: task.sessionId,
    }, deps);

  return agentMachine.provide({
    actors: {
      prepare: fromPromise<undefined, { agentId: string }>(() => Promise.resolve(undefined)),

      think: fromPromise<ThinkOutput, TurnInput>(async ({ input, signal }) => {
        const cell = cellOf(input.agentId);
        if (input.step === 0) cell.conversation.append({ role: 'user', content: taskAsPrompt(input.task) });
        const stream = host.model.chat(
          { messages: cell.conversation.messages, tools: host.tools.definitions(cell.role.tools) },
          { signal },
        );
        const reply = await collectReply(stream, (text) => publish(thinkingTask(input.agentId, input.task, text)));
        signal.throwIfAborted();
        cell.conversation.append(reply.message);
        cell.pendingCalls = reply.message.toolCalls;
        return reply.message.toolCalls.length > 0
          ? { kind: 'tools', calls: reply.message.toolCalls.length }
          : { kind: 'answer', text: reply.message.content };
      }),

      act: fromPromise<undefined, TurnInput>(async ({ input, signal }) => {
        const cell = cellOf(input.agentId);
        const calls = cell.pendingCalls;
        cell.pendingCalls = [];
        for (const call of calls) {
          publish(createTask({
            from: input.agentId,
            to: 'observer',
            action: Actions.toolCall,
            status: 'working',
            parameters: { tool: call.name, arguments: call.arguments },
            parentId: input.task.id,
            sessionId: input.task.sessionId,
          }, deps));
        }
        const context = { agentId: input.agentId, task: input.task, signal, society: host.port };
        const options = { registry: host.tools, policy: cell.role.tools, defaultTimeoutMs: host.config.toolTimeoutMs };
        // Independent calls run in parallel; results go back in the order the model asked.
        const results = await Promise.all(calls.map((call) => runToolCall(call, context, options)));
        signal.throwIfAborted();
        cell.conversation.append(
          ...calls.map((call, i) => ({ role: 'tool' as const, toolCallId: call.id, name: call.name, content: results[i]?.content ?? '' })),
        );
        return undefined;
      }),

      release: fromPromise<undefined, { agentId: string; reason: string }>(async ({ input }) => {
        await host.release(input.agentId, input.reason);
        return undefined;
      }),
    },
    actions: {
      beginTurn: guarded('beginTurn', ({ agentId, task }: { agentId: string; task: Task | null }) => {
        if (task === null) return;
        host.logger.debug({ agentId, taskId: task.id }, 'turn started');
        publish(replyTo(task, { status: 'working' }, host.clock));
      }),
      answer: guarded('answer', ({ task, text }: { agentId: string; task: Task | null; text: string }) => {
        if (task !== null) publish(replyTo(task, { status: 'completed', result: { text } }, host.clock));
      }),
      failTurn: guarded('failTurn', ({ agentId, task, error }: { agentId: string; task: Task | null; error: unknown }) => {
        const message = describeError(error);
        host.logger.error({ agentId, taskId: task?.id, error: message }, 'agent turn failed');
        if (task !== null) publish(replyTo(task, { status: 'failed', error: { code: errorCodeOf(error), message } }, host.clock));
        notice(agentId, Actions.error, { error: message }, task);
      }),
      stopAtStepLimit: guarded('stopAtStepLimit', ({ agentId, task, steps }: { agentId: string; task: Task | null; steps: number }) => {
        host.logger.warn({ agentId, taskId: task?.id, steps }, 'turn stopped at the step limit');
        if (task !== null) {
          publish(replyTo(task, { status: 'failed', error: { code: 'step_limit', message: `stopped after ${steps} steps without a final answer` } }, host.clock));
        }
      }),
      cancelPending: guarded('cancelPending', ({ tasks, reason }: { agentId: string; tasks: readonly Task[]; reason: string }) => {
        for (const task of tasks) {
          publish(replyTo(task, { status: 'canceled', error: { code: 'agent_terminated', message: `receiver terminated: ${reason}` } }, host.clock));
        }
      }),
      refuseTask: guarded('refuseTask', ({ agentId, task, reason }: { agentId: string; task: Task; reason: 'terminating' | 'mailbox_full' }) => {
        const error = reason === 'terminating'
          ? { code: 'agent_terminated', message: `agent ${agentId} is terminating` }
          : { code: 'mailbox_full', message: `agent ${agentId} has ${host.config.mailboxLimit} Tasks waiting; try again later` };
        if (reason === 'mailbox_full') host.logger.warn({ agentId, taskId: task.id }, 'mailbox full: task rejected');
        publish(replyTo(task, { status: 'rejected', error }, host.clock));
      }),
      reportSpawnFailure: guarded('reportSpawnFailure', ({ agentId, error }: { agentId: string; error: unknown }) => {
        host.logger.error({ agentId, error: describeError(error) }, 'agent failed to spawn');
      }),
      announceTerminated: guarded('announceTerminated', ({ agentId }: { agentId: string }) => {
        notice(agentId, Actions.terminated, { agentId }, null);
      }),
    },
  });
}
