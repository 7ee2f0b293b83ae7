import { z } from 'zod';
import type { Skill } from './skill.js';
import type { SkillMatch } from './skillMatcher.js';

/** A skill as listings show it (`troupe skills`, `GET /api/skills`): what it is and what activates it, not its body. */
export const SkillSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  triggers: z.object({ keywords: z.array(z.string()), patterns: z.array(z.string()), semantic: z.string().optional() }),
  /** Tool steps it runs without a model call (0: none). */
  steps: z.number().int().nonnegative(),
  allowedTools: z.array(z.string()).optional(),
});
export type SkillSummary = z.infer<typeof SkillSummarySchema>;

/** Why a text would activate a skill: `keyword`, `pattern`, or `semantic` with its similarity. */
export const SkillMatchSummarySchema = z.object({ skill: z.string(), by: z.enum(['keyword', 'pattern', 'semantic']), score: z.number() });

export function skillSummary(skill: Skill): SkillSummary {
  const { keywords = [], patterns = [], semantic } = skill.triggers;
  return {
    name: skill.name,
    description: skill.description,
    triggers: { keywords: [...keywords], patterns: [...patterns], ...(semantic === undefined ? {} : { semantic }) },
    steps: skill.steps?.length ?? 0,
    ...(skill.allowedTools.length === 0 ? {} : { allowedTools: [...skill.allowedTools] }),
  };
}

export function matchSummary(match: SkillMatch): z.infer<typeof SkillMatchSummarySchema> {
  return { skill: match.skill.name, by: match.by, score: match.score };
}
