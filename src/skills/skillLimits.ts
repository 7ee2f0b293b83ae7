import { z } from 'zod';

/** The bounds on skills: what is loaded, what a file may weigh, what an agent holds active. */
export const SkillLimitsSchema = z
  .object({
    /** Skills a registry holds; loading past it refuses the rest, each named. */
    maxSkills: z.number().int().positive().default(2_000),
    /** Bytes of a SKILL.md (front matter and body). */
    maxSkillFileBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024),
    /** Characters of a skill's body (its instructions), what enters the context once it is active. */
    maxBodyChars: z.number().int().positive().default(50_000),
    /** Bytes `read_skill_file` returns of one file; a bigger one is refused. */
    maxFileReadBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024),
    /** Skills active at once in one session of one agent; activating one more lets the least recently activated go. */
    maxActivePerSession: z.number().int().positive().default(4),
    /** Share of the context budget the list of skills (names and descriptions) may take; those past it are counted, not listed. */
    catalogueShare: z.number().min(0).max(1).default(0.1),
  })
  .strict();

export type SkillLimits = z.infer<typeof SkillLimitsSchema>;
export type SkillLimitsInput = z.input<typeof SkillLimitsSchema>;
