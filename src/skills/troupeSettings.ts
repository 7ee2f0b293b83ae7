import { z } from 'zod';
import { JsonValueSchema } from '../task/index.js';

/**
 * What troupe adds to a skill, kept out of SKILL.md so the file stays valid for every other client
 * (the spec refuses unknown front-matter fields, and `metadata` holds strings only): `troupe.yaml`
 * in the skill's folder, or the same object given in code to `defineSkill`.
 */

/** A tool call of a skill's orchestration; `{{name}}` in a string argument is the result of the step of that name, `{{task}}` the Task's text. */
export const ToolStepSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z_][\w-]{0,63}$/, 'must be 1–64 letters, digits, _ or -, not starting with a digit or -'),
    tool: z.string().min(1, 'must name a tool'),
    arguments: z.record(z.string(), JsonValueSchema).optional(),
  })
  .strict();

/** Steps run at once; `join` names their results gathered as one JSON object (step name → content). */
const ParallelStepSchema = z
  .object({
    parallel: z.array(ToolStepSchema).min(2, 'needs at least 2 steps').max(16, 'may hold at most 16 steps'),
    join: ToolStepSchema.shape.name,
  })
  .strict();

export const SkillStepSchema = z.union([ToolStepSchema, ParallelStepSchema], {
  error: 'must be a tool step {name, tool, arguments} or {parallel: [...], join}',
});

export const SkillTriggersSchema = z
  .object({
    /** Words or phrases: any one in the Task's text (case-insensitive, whole words) activates the skill. */
    keywords: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')).max(100, 'at most 100 keywords').optional(),
    /** Regular expressions (JavaScript syntax, matched case-insensitively) tested against the Task's text. */
    patterns: z
      .array(
        z
          .string()
          .min(1, 'must not be empty')
          .max(500, 'must be at most 500 characters')
          .refine((source) => compiles(source), 'is not a valid regular expression'),
      )
      .max(20, 'at most 20 patterns')
      .optional(),
    /** What Tasks the skill is for, in words: compared with the Task's text by the memory's embedder. */
    semantic: z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1,024 characters').optional(),
    /** How similar (cosine) a Task must be to `semantic` to activate the skill; 0.35 by default. */
    minSimilarity: z.number().min(0).max(1).optional(),
  })
  .strict();

export const TroupeSettingsSchema = z
  .object({
    triggers: SkillTriggersSchema.optional(),
    /** Tool steps run in order (a parallel group is one step); with them the skill answers without a model call. */
    steps: z.array(SkillStepSchema).min(1, 'needs at least one step').max(32, 'at most 32 steps').optional(),
    /** The answer of a steps skill, a template over step names; the last step's result by default. */
    result: z.string().max(10_000).optional(),
  })
  .strict()
  .superRefine((settings, context) => {
    const seen = new Set<string>();
    for (const [index, step] of (settings.steps ?? []).entries()) {
      const names = 'parallel' in step ? [...step.parallel.map((inner) => inner.name), step.join] : [step.name];
      for (const name of names) {
        if (name === 'task') context.addIssue({ code: 'custom', path: ['steps', index], message: '"task" is the name of the Task\'s text, not of a step' });
        else if (seen.has(name)) context.addIssue({ code: 'custom', path: ['steps', index], message: `a step named ${name} comes twice` });
        seen.add(name);
      }
    }
  });

export type ToolStep = z.infer<typeof ToolStepSchema>;
export type SkillStep = z.infer<typeof SkillStepSchema>;
export type SkillTriggers = z.infer<typeof SkillTriggersSchema>;

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'iu');
    return true;
  } catch {
    return false;
  }
}
