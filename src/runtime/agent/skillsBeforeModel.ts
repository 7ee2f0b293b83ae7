import type { ThinkOutput } from '../../../machines/agent.machine.js';
import { TroupeError } from '../../errors.js';
import { runStepsOf, stepFailure } from '../../skills/index.js';
import { type Task, taskText } from '../../task/index.js';
import type { Agent } from './agent.js';
import type { TurnContext } from './context/sessionContexts.js';

/**
 * Before a turn's first model call: activates the skills whose triggers match the Task. When one
 * of them is a skill of tool steps, its steps run instead of the model and their result is the
 * answer (a failing step fails the turn, naming the step); otherwise null, and the model is called
 * with the active skills' instructions in its context.
 */
export async function skillsBeforeModel(agent: Agent, task: Task, context: TurnContext, signal: AbortSignal): Promise<ThinkOutput | null> {
  const { env } = agent;
  if (env.skills.registry.size === 0) return null;
  const text = taskText(task);
  const matches = await env.skills.activateFor(agent.id, task, text);
  const orchestration = matches.find((match) => match.skill.steps !== undefined)?.skill;
  if (orchestration === undefined) return null;
  const toolContext = { agentId: agent.id, task, signal, society: env.society, ...(env.remoteRoles === undefined ? {} : { remoteRoles: env.remoteRoles }) };
  const tools = { registry: env.tools, defaultTimeoutMs: env.config.toolTimeoutMs, clock: env.clock };
  // Its steps may change the world: the Task is on disk first (it was handed over once committed).
  await env.journal.accepted(task.id);
  const outcome = await runStepsOf(orchestration, text, toolContext, tools, agent.role.tools);
  signal.throwIfAborted();
  if (!outcome.ok) {
    throw new TroupeError('tool_error', stepFailure(orchestration, outcome), {
      context: { agentId: agent.id, taskId: task.id, skill: orchestration.name, step: outcome.step },
    });
  }
  context.append({ role: 'assistant', content: outcome.text, toolCalls: [] });
  return { kind: 'answer', text: outcome.text };
}
