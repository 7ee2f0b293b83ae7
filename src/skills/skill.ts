import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { Tool } from '../tools/index.js';
import { FrontMatterSchema, type SkillProblem, problemsOf, unknownFrontMatterRule } from './frontMatter.js';
import { type SkillStep, type SkillTriggers, TroupeSettingsSchema } from './troupeSettings.js';

/** A loaded skill: its spec fields, its instructions, and what troupe adds (triggers, tools, steps). */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** Tools the skill's author pre-approves (the spec's `allowed-tools`), split on spaces. */
  readonly allowedTools: readonly string[];
  /** The instructions: SKILL.md below its front matter. What enters an agent's context once the skill is active. */
  readonly body: string;
  /** The skill's folder (real path), whose files `read_skill_file` reads; null for a skill defined in code. */
  readonly dir: string | null;
  readonly triggers: SkillTriggers;
  /** Tools the skill brings, added to the shared registry when the skill is. */
  readonly tools: readonly Tool[];
  /** With steps, the skill is an orchestration of tool calls that runs without a model call. */
  readonly steps: readonly SkillStep[] | undefined;
  readonly result: string | undefined;
}

/** What `defineSkill` takes: the front matter's fields, the body, and troupe's additions. */
export interface SkillInput {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  'allowed-tools'?: string;
  body?: string;
  triggers?: SkillTriggers;
  tools?: readonly Tool[];
  steps?: SkillStep[];
  result?: string;
}

/**
 * A skill made in code, checked by the same rules as a SKILL.md; a broken rule is refused with a
 * ValidationError naming the field.
 *
 * @example
 * const greet = defineSkill({ name: 'greeting', description: 'Greets people. Use when someone says hello.', body: 'Answer warmly.', triggers: { keywords: ['hello'] } });
 */
export function defineSkill(input: SkillInput): Skill {
  const { body = '', triggers, tools = [], steps, result, ...front } = input;
  const file = `skill ${input.name}`;
  const frontMatter = FrontMatterSchema.safeParse(front);
  if (!frontMatter.success) throw refusal(problemsOf(frontMatter.error, file, unknownFrontMatterRule)[0], frontMatter.error);
  const settings = TroupeSettingsSchema.safeParse({ triggers, steps, result });
  if (!settings.success) throw refusal(problemsOf(settings.error, file, 'is not a setting of a skill')[0], settings.error);
  return makeSkill(frontMatter.data, body, null, settings.data, tools);
}

function refusal(problem: SkillProblem | undefined, cause: z.ZodError): ValidationError {
  return new ValidationError(problem?.field ?? '', `${problem?.rule ?? 'invalid'} (${problem?.file ?? 'skill'})`, { cause });
}

/** A skill from checked parts. */
export function makeSkill(
  front: z.infer<typeof FrontMatterSchema>,
  body: string,
  dir: string | null,
  settings: z.infer<typeof TroupeSettingsSchema>,
  tools: readonly Tool[],
): Skill {
  return Object.freeze({
    name: front.name,
    description: front.description,
    ...(front.license === undefined ? {} : { license: front.license }),
    ...(front.compatibility === undefined ? {} : { compatibility: front.compatibility }),
    metadata: front.metadata ?? {},
    allowedTools: (front['allowed-tools'] ?? '').split(/\s+/).filter((tool) => tool !== ''),
    body: body.trim(),
    dir,
    triggers: settings.triggers ?? {},
    tools,
    steps: settings.steps,
    result: settings.result,
  });
}
