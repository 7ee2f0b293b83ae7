import { z } from 'zod';
import type { Clock } from '../clock.js';
import { type Tool, type ToolContext, type ToolRegistry, type ToolResult, defineTool, errorResult, jsonResult, runToolCall } from '../tools/index.js';
import { type ToolPolicy, taskText } from '../task/index.js';
import { readSkillFile } from './readSkillFile.js';
import { type StepsOutcome, runSkillSteps } from './runSkillSteps.js';
import type { Skill } from './skill.js';
import type { SkillHub } from './skillHub.js';

/** What running a skill's tool steps needs of the tools layer. */
export interface StepTools {
  readonly registry: ToolRegistry;
  readonly defaultTimeoutMs: number;
  readonly clock: Clock;
}

/** Runs a skill's steps as the agent of `context`, each tool call under the agent's tool policy. */
export function runStepsOf(skill: Skill, taskText: string, context: ToolContext, tools: StepTools, policy: ToolPolicy | undefined): Promise<StepsOutcome> {
  const options = { registry: tools.registry, defaultTimeoutMs: tools.defaultTimeoutMs, clock: tools.clock, ...(policy === undefined ? {} : { policy }) };
  let calls = 0;
  return runSkillSteps(skill.steps ?? [], skill.result, taskText, (tool, args) => {
    calls += 1;
    const call = { id: `${context.toolCallId ?? 'skill'}-${skill.name}-${calls}`, name: tool, arguments: JSON.stringify(args) };
    return runToolCall(call, context, options);
  });
}

/** A failed step as the model or the user reads it. */
export function stepFailure(skill: Skill, outcome: Extract<StepsOutcome, { ok: false }>): string {
  const tool = outcome.tool === '' ? '' : ` (tool ${outcome.tool})`;
  return `skill ${skill.name}: step ${outcome.step}${tool} failed: ${outcome.error}`;
}

/**
 * The tools an agent uses skills with: `use_skill` activates a skill (its instructions enter the
 * context from the next model call; a skill of tool steps runs them and returns the result) or
 * deactivates one; `read_skill_file` reads a file of an active skill's folder.
 */
export function skillTools(hub: SkillHub, tools: StepTools): Tool[] {
  const useSkill = defineTool({
    name: 'use_skill',
    description:
      'Activates one of the skills listed in your instructions by name: its instructions join your context from your next step (a skill made of tool steps runs them and returns the result). With deactivate: true, stops using it.',
    parameters: z.object({ name: z.string().min(1).max(64), deactivate: z.boolean().optional() }).strict(),
    async execute({ name, deactivate }, context): Promise<ToolResult> {
      const { agentId, task } = context;
      if (!hub.mayUse(agentId, name)) return errorResult(`no skill named ${name} is available to you`, 'invalid_input');
      if (deactivate === true) return jsonResult({ skill: name, active: false, wasActive: hub.deactivate(agentId, task, name) });
      const skill = hub.registry.get(name);
      if (skill === undefined) return errorResult(`no skill named ${name}`, 'invalid_input');
      hub.activate(agentId, task, skill, 'use_skill');
      if (skill.steps === undefined) return jsonResult({ skill: name, active: true, note: 'its instructions are in your context from your next step' });
      const outcome = await runStepsOf(skill, taskText(task), context, tools, hub.policyOf(agentId));
      return outcome.ok ? { content: outcome.text, metadata: { skill: name, steps: Object.keys(outcome.results) } } : errorResult(stepFailure(skill, outcome));
    },
  });
  const readFile = defineTool({
    name: 'read_skill_file',
    description: "Reads a file of an active skill's folder (e.g. references/guide.md), by its path relative to that folder.",
    parameters: z.object({ skill: z.string().min(1).max(64), path: z.string().min(1).max(1024) }).strict(),
    async execute({ skill: name, path }, { agentId, task }): Promise<ToolResult> {
      const skill = hub.active(agentId, task.sessionId).find((active) => active.name === name);
      if (skill === undefined) return errorResult(`skill ${name} is not active; activate it with use_skill first`, 'invalid_input');
      if (skill.dir === null) return errorResult(`skill ${name} was defined in code and has no files`, 'invalid_input');
      const read = await readSkillFile(skill.dir, path, hub.limits.maxFileReadBytes);
      return read.ok ? { content: read.text, metadata: { skill: name, path } } : errorResult(read.reason, 'invalid_input');
    },
  });
  return [useSkill, readFile];
}
