import { TroupeError } from '../../errors.js';
import type { Task } from '../../task/index.js';
import type { Agent } from './agent.js';

// Why a turn stops before its answer, as the errors its Task fails with.

/** The agent's settings name a model the runtime was not given (`createRuntime({ models })`): its turns fail, saying which. */
export function unknownModel(agent: Agent): TroupeError {
  const name = agent.settings.settings.model ?? '';
  return new TroupeError('model_error', `agent ${agent.id} uses the model "${name}", which this runtime was not given (createRuntime({ models }))`, {
    context: { agentId: agent.id },
  });
}

/** A turn's model calls used more tokens than `maxTaskTokens`: the turn ends, its reply unused. */
export function tokenBudgetSpent(agent: Agent, task: Task, tokens: number): TroupeError {
  const max = agent.settings.limits.maxTaskTokens;
  return new TroupeError('token_budget', `turn stopped: task ${task.id} used ${tokens} tokens, past its budget of ${max} (maxTaskTokens)`, {
    context: { agentId: agent.id, taskId: task.id, tokens, max },
  });
}

/** A turn outlived `maxTaskMs` on the runtime's clock: the turn ends, whatever it was doing aborted. */
export function timeBudgetSpent(agent: Agent, task: Task): TroupeError {
  const max = agent.settings.limits.maxTaskMs;
  return new TroupeError('time_budget', `turn stopped: task ${task.id} ran past its budget of ${max} ms (maxTaskMs)`, {
    context: { agentId: agent.id, taskId: task.id, max },
  });
}
