import { type AnyEventObject, fromCallback, fromPromise } from 'xstate';
import { type TurnInput, agentMachine } from '../../../machines/agent.machine.js';
import { describeError, errorCodeOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { Actions, type ApprovalNotice, type HandoffDecision, type Task, type TaskError, type TaskRef, type TaskUsage, replyTo } from '../../task/index.js';
import type { Agent, AgentMachine } from './agent.js';
import { runTurn } from './turn.js';
import { pausedForApproval } from './approvalGate.js';
import { handOff } from './handOver.js';

/** The final reply to a Task the agent had accepted: it stops waiting (and is not handed back after a restart). */
function settle(agent: Agent, task: Task, reply: Task): void {
  agent.env.bus.publish(reply);
  agent.env.journal.answered(agent.id, task.id);
}

/**
 * Every failure an agent answers is stored and sent: its message may carry a secret (a provider
 * echoing the key, a termination reason the model wrote), so it is redacted here, once for all.
 */
function reply(agent: Agent, task: Task, update: Parameters<typeof replyTo>[1]): void {
  const { error } = update;
  const safe = error === undefined || error === null ? update : { ...update, error: { ...error, message: agent.env.redactor.text(error.message) } };
  settle(agent, task, replyTo(task, safe, agent.env.clock));
}

interface AnswerParams {
  agentId: string;
  task: Task;
  text: string;
  importance: number | undefined;
  usage: TaskUsage | undefined;
}

/** The answer of a turn; what the turn cost rides on it (`metadata.usage`), for whoever reads the Task (the dashboard's timeline). */
function answer(agent: Agent, { task, text, importance, usage }: AnswerParams): void {
  const metadata = { ...(importance === undefined ? {} : { importance }), ...(usage === undefined ? {} : { usage: { ...usage } }) };
  reply(agent, task, { status: 'completed', result: { text }, ...(Object.keys(metadata).length === 0 ? {} : { metadata }) });
}

/** A status update that settles nothing: the Task goes on (working again, or paused for a person). */
function update(agent: Agent, task: Task, status: Parameters<typeof replyTo>[1]): void {
  agent.env.bus.publish(replyTo(task, status, agent.env.clock));
}

/**
 * The agent machine with troupe's implementations, made once per runtime (providing a machine
 * rebuilds it, too costly per agent). Each implementation finds its agent by id and acts on it.
 *
 * @internal
 */
export function provideAgentMachine(agentOf: (agentId: string) => Agent | undefined, logger: Logger): AgentMachine {
  const find = (agentId: string): Agent => {
    const agent = agentOf(agentId);
    if (agent === undefined) throw new Error(`agent ${agentId} is not live`);
    return agent;
  };
  // An action that throws would stop the actor; one agent's failure must never stop it or another.
  const guarded =
    <P extends { agentId: string }>(name: string, body: (agent: Agent, params: P) => void) =>
    (_: unknown, params: P): void => {
      const agent = agentOf(params.agentId);
      try {
        if (agent === undefined) throw new Error(`agent ${params.agentId} is not live`);
        body(agent, params);
      } catch (error) {
        logger.error({ action: name, agentId: params.agentId, error: describeError(error) }, 'agent action failed');
      }
    };

  return agentMachine.provide({
    actors: {
      // A new agent's record is written before it is started, so there is nothing left to prepare.
      prepare: fromPromise<undefined, { agentId: string }>(() => Promise.resolve(undefined)),
      runTurn: fromCallback<AnyEventObject, TurnInput>(({ input, sendBack }) => runTurn(find(input.agentId), input, sendBack)),
      release: fromPromise<undefined, { agentId: string; reason: string; resumable: boolean }>(({ input }) => {
        find(input.agentId).release(input.resumable);
        return Promise.resolve(undefined);
      }),
    },
    actions: {
      beginTurn: guarded('beginTurn', (agent, { task }: { agentId: string; task: Task }) => {
        agent.env.logger.debug({ agentId: agent.id, taskId: task.id, sessionId: task.sessionId }, 'turn started');
        update(agent, task, { status: 'working' });
      }),
      // A pause, not a reply: the Task goes on once decided, so nothing is settled or stops waiting for it.
      awaitApproval: guarded('awaitApproval', (agent, { task, approvals }: { agentId: string; task: Task; approvals: readonly ApprovalNotice[] }) =>
        update(agent, task, pausedForApproval(approvals)),
      ),
      resumeAfterApproval: guarded('resumeAfterApproval', (agent, { task }: { agentId: string; task: Task }) => update(agent, task, { status: 'working' })),
      answer: guarded('answer', (agent, params: AnswerParams) => answer(agent, params)),
      failTurn: guarded('failTurn', (agent, { task, error }: { agentId: string; task: Task; error: unknown }) => {
        // A provider may echo the API key in its error: redacted for the log and the notice too.
        const message = agent.env.redactor.text(describeError(error));
        agent.env.logger.error({ agentId: agent.id, taskId: task.id, error: message }, 'agent turn failed');
        reply(agent, task, { status: 'failed', error: { code: errorCodeOf(error), message } });
        agent.notify(Actions.error, { error: message }, task);
      }),
      handOff: guarded('handOff', (agent, { task, handoff }: { agentId: string; task: Task; handoff: HandoffDecision }) => {
        handOff(agent, task, handoff, (text) => reply(agent, task, { status: 'input-required', result: { text } }));
      }),
      stopAtStepLimit: guarded('stopAtStepLimit', (agent, { task, steps }: { agentId: string; task: Task; steps: number }) => {
        agent.env.logger.warn({ agentId: agent.id, taskId: task.id, steps }, 'turn stopped at the step limit');
        reply(agent, task, { status: 'failed', error: { code: 'step_limit', message: `stopped after ${steps} steps without a final answer` } });
      }),
      cancelPending: guarded(
        'cancelPending',
        (agent, { tasks, reason, resumable }: { agentId: string; tasks: readonly Task[]; reason: string; resumable: boolean }) => {
          if (resumable) return;
          for (const task of tasks) reply(agent, task, { status: 'canceled', error: { code: 'agent_terminated', message: `receiver terminated: ${reason}` } });
        },
      ),
      cancelTask: guarded('cancelTask', (agent, { task, by, reason }: { agentId: string; task: Task; by: string; reason: string }) => {
        agent.env.logger.info({ agentId: agent.id, taskId: task.id, by }, 'task canceled');
        reply(agent, task, { status: 'canceled', error: { code: 'aborted', message: `canceled by ${by}: ${reason}` } });
      }),
      refuseTask: guarded('refuseTask', (agent, { task, reason }: { agentId: string; task: Task; reason: 'terminating' | 'mailbox_full' }) => {
        const error: TaskError =
          reason === 'terminating'
            ? { code: 'agent_terminated', message: `agent ${agent.id} is terminating` }
            : { code: 'mailbox_full', message: `agent ${agent.id} has ${agent.env.config.mailboxLimit} Tasks waiting; try again later` };
        if (reason === 'mailbox_full') agent.env.logger.warn({ agentId: agent.id, taskId: task.id }, 'mailbox full: task rejected');
        reply(agent, task, { status: 'rejected', error });
      }),
      reportSpawnFailure: guarded('reportSpawnFailure', (agent, { error }: { agentId: string; error: unknown }) => {
        agent.env.logger.error({ agentId: agent.id, error: describeError(error) }, 'agent failed to spawn');
      }),
      announceTerminated: guarded('announceTerminated', (agent, { resumable, about }: { agentId: string; resumable: boolean; about: TaskRef | null }) => {
        if (!resumable) agent.notify(Actions.terminated, { agentId: agent.id }, about);
      }),
    },
  });
}
