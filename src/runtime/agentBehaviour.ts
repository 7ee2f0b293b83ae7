import type { Clock } from '../clock.js';
import type { EventBus } from '../bus/index.js';
import { describeError, errorCodeOf } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../llm/index.js';
import { Actions, type Task, createTask, replyTo } from '../task/index.js';
import type { SocietyPort, ToolRegistry } from '../tools/index.js';
import { type AnyEventObject, fromCallback, fromPromise } from 'xstate';
import { type TurnInput, agentMachine } from '../../machines/agent.machine.js';
import type { AgentCell } from './agentCell.js';
import type { RuntimeConfig } from './config.js';
import { runTurn } from './turn.js';

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
  /** Before each model call: warns an agent whose conversation is over its maximum. */
  warnIfLong(agentId: string, task: Task | null): boolean;
  /** Frees what the agent held (inbox, conversation, registry entry). */
  release(agentId: string, reason: string): Promise<void>;
  /** `agentId` gave `taskId` its final reply: the Task no longer waits for it. */
  settled(agentId: string, taskId: string): void;
  /**
   * Whether `agentId` is being stopped for a shutdown of a runtime with a data dir rather than
   * terminated: it lives on in the store, so its waiting Tasks are kept for the restart (not
   * cancelled) and no termination is announced.
   */
  isStopping(agentId: string): boolean;
}

/** The agent machine with troupe's implementations, made once per runtime. */
export function provideAgentMachine(host: AgentHost) {
  const deps = { ids: host.ids, clock: host.clock };
  const publish = (task: Task): void => host.bus.publish(task);
  // The final reply to a Task the agent had accepted: it stops waiting (and is not handed back after a restart).
  const settle = (agentId: string, task: Task, reply: Task): void => {
    publish(reply);
    host.settled(agentId, task.id);
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

  return agentMachine.provide({
    actors: {
      prepare: fromPromise<undefined, { agentId: string }>(() => Promise.resolve(undefined)),

      runTurn: fromCallback<AnyEventObject, TurnInput>(({ input, sendBack }) => runTurn(host, input, sendBack)),

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
      answer: guarded('answer', ({ agentId, task, text, importance }: { agentId: string; task: Task | null; text: string; importance: number | undefined }) => {
        const metadata = importance === undefined ? {} : { metadata: { importance } };
        if (task !== null) settle(agentId, task, replyTo(task, { status: 'completed', result: { text }, ...metadata }, host.clock));
      }),
      failTurn: guarded('failTurn', ({ agentId, task, error }: { agentId: string; task: Task | null; error: unknown }) => {
        const message = describeError(error);
        host.logger.error({ agentId, taskId: task?.id, error: message }, 'agent turn failed');
        if (task !== null) settle(agentId, task, replyTo(task, { status: 'failed', error: { code: errorCodeOf(error), message } }, host.clock));
        notice(agentId, Actions.error, { error: message }, task);
      }),
      stopAtStepLimit: guarded('stopAtStepLimit', ({ agentId, task, steps }: { agentId: string; task: Task | null; steps: number }) => {
        host.logger.warn({ agentId, taskId: task?.id, steps }, 'turn stopped at the step limit');
        if (task !== null) {
          settle(agentId, task, replyTo(task, { status: 'failed', error: { code: 'step_limit', message: `stopped after ${steps} steps without a final answer` } }, host.clock));
        }
      }),
      cancelPending: guarded('cancelPending', ({ agentId, tasks, reason }: { agentId: string; tasks: readonly Task[]; reason: string }) => {
        if (host.isStopping(agentId)) return;
        for (const task of tasks) {
          settle(agentId, task, replyTo(task, { status: 'canceled', error: { code: 'agent_terminated', message: `receiver terminated: ${reason}` } }, host.clock));
        }
      }),
      refuseTask: guarded('refuseTask', ({ agentId, task, reason }: { agentId: string; task: Task; reason: 'terminating' | 'mailbox_full' }) => {
        const error = reason === 'terminating'
          ? { code: 'agent_terminated', message: `agent ${agentId} is terminating` }
          : { code: 'mailbox_full', message: `agent ${agentId} has ${host.config.mailboxLimit} Tasks waiting; try again later` };
        if (reason === 'mailbox_full') host.logger.warn({ agentId, taskId: task.id }, 'mailbox full: task rejected');
        settle(agentId, task, replyTo(task, { status: 'rejected', error }, host.clock));
      }),
      reportSpawnFailure: guarded('reportSpawnFailure', ({ agentId, error }: { agentId: string; error: unknown }) => {
        host.logger.error({ agentId, error: describeError(error) }, 'agent failed to spawn');
      }),
      announceTerminated: guarded('announceTerminated', ({ agentId }: { agentId: string }) => {
        if (host.isStopping(agentId)) return;
        notice(agentId, Actions.terminated, { agentId }, null);
      }),
    },
  });
}
