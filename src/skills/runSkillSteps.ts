import type { JsonValue } from '../task/index.js';
import type { ToolResult } from '../tools/index.js';
import type { SkillStep, ToolStep } from './troupeSettings.js';

/** Runs one tool by name with its arguments: the tool layer, under the calling agent's policy. */
export type StepRunner = (tool: string, args: Record<string, JsonValue>) => Promise<ToolResult>;

/** How a skill's steps ended: the answer, or the step that failed and why. */
export type StepsOutcome =
  | { readonly ok: true; readonly text: string; readonly results: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly step: string; readonly tool: string; readonly error: string; readonly results: Readonly<Record<string, string>> };

/**
 * Runs a skill's orchestration without a model: each step in turn, a parallel group's steps at
 * once (their results joined under the group's `join` name as one JSON object). A string argument's
 * `{{name}}` is replaced by the result (content) of the earlier step of that name, `{{task}}` by the
 * Task's text. The first failing step (an error result, or a name no earlier step had) ends the
 * run, naming the step.
 */
export async function runSkillSteps(steps: readonly SkillStep[], resultTemplate: string | undefined, taskText: string, run: StepRunner): Promise<StepsOutcome> {
  const results: Record<string, string> = {};
  let last = '';
  for (const step of steps) {
    const group = 'parallel' in step ? step.parallel : [step];
    const outcomes = await Promise.all(group.map((inner) => runStep(inner, results, taskText, run)));
    for (const outcome of outcomes) if (!outcome.ok) return { ...outcome, results };
    for (const outcome of outcomes) if (outcome.ok) results[outcome.step] = outcome.content;
    if ('parallel' in step) {
      const joined = JSON.stringify(Object.fromEntries(step.parallel.map((inner) => [inner.name, results[inner.name] ?? ''])));
      results[step.join] = joined;
      last = joined;
    } else last = results[step.name] ?? '';
  }
  if (resultTemplate === undefined) return { ok: true, text: last, results };
  const text = fill(resultTemplate, results, taskText);
  return typeof text === 'string' ? { ok: true, text, results } : { ok: false, step: '(result)', tool: '', error: text.error, results };
}

type StepOutcome =
  | { readonly ok: true; readonly step: string; readonly content: string }
  | { readonly ok: false; readonly step: string; readonly tool: string; readonly error: string };

async function runStep(step: ToolStep, results: Readonly<Record<string, string>>, taskText: string, run: StepRunner): Promise<StepOutcome> {
  const failed = (error: string): StepOutcome => ({ ok: false, step: step.name, tool: step.tool, error });
  let args: Record<string, JsonValue>;
  try {
    args = fillValue(step.arguments ?? {}, results, taskText) as Record<string, JsonValue>;
  } catch (error) {
    if (error instanceof UnknownStepName) return failed(`its arguments name ${error.message}`);
    throw error;
  }
  let result: ToolResult;
  try {
    result = await run(step.tool, args);
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  return result.isError === true ? failed(result.content) : { ok: true, step: step.name, content: result.content };
}

/** A template named a step that had not run before it. */
class UnknownStepName extends Error {}

/** A JSON value with every string's `{{name}}` filled in; throws UnknownStepName for a name no step had. */
function fillValue(value: JsonValue, results: Readonly<Record<string, string>>, taskText: string): JsonValue {
  if (typeof value === 'string') {
    const filled = fill(value, results, taskText);
    if (typeof filled !== 'string') throw new UnknownStepName(filled.error);
    return filled;
  }
  if (Array.isArray(value)) return value.map((item) => fillValue(item, results, taskText));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fillValue(inner, results, taskText)]));
  }
  return value;
}

/** A template with `{{name}}` filled from step results and `{{task}}` from the Task's text. */
function fill(template: string, results: Readonly<Record<string, string>>, taskText: string): string | { error: string } {
  let missing: string | undefined;
  const text = template.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (_, name: string) => {
    if (name === 'task') return taskText;
    const value = results[name];
    if (value === undefined) missing ??= name;
    return value ?? '';
  });
  return missing === undefined ? text : { error: `{{${missing}}}, which no earlier step is called` };
}
