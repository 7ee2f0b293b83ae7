import { z } from 'zod';
import { formatPath } from '../task/index.js';

/** One thing wrong with a skill: the file it is in, the field, and the rule the field broke. */
export interface SkillProblem {
  readonly file: string;
  readonly field: string;
  readonly rule: string;
}

/** A problem as one line: `skills/pdf/SKILL.md: name: must be 1–64 characters`. */
export function describeProblem(problem: SkillProblem): string {
  return `${problem.file}: ${problem.field}: ${problem.rule}`;
}

/** The fields the Agent Skills spec allows in SKILL.md's front matter, and no others. */
const specFields = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;

/** A string field whose absence reads "is required" and whose wrong type reads `typeRule`. */
function text(typeRule = 'must be a string'): z.ZodString {
  return z.string({ error: (issue) => (issue.input === undefined ? 'is required' : typeRule) });
}

/** A skill's name by the spec: 1–64 of a-z, 0-9 and hyphens, no hyphen first, last or twice in a row. */
const SkillNameSchema = text()
  .min(1, 'must be 1–64 characters')
  .max(64, 'must be 1–64 characters')
  .regex(/^[a-z0-9-]+$/, 'may hold only lowercase letters a-z, digits and hyphens')
  .refine((name) => !name.startsWith('-') && !name.endsWith('-'), 'must not start or end with a hyphen')
  .refine((name) => !name.includes('--'), 'must not hold two hyphens in a row');

/** SKILL.md's front matter as the Agent Skills spec (agentskills.io/specification) defines it. */
export const FrontMatterSchema = z
  .object({
    name: SkillNameSchema,
    description: text()
      .refine((text) => text.trim() !== '', 'must not be empty')
      .refine((text) => text.length <= 1024, 'must be at most 1,024 characters'),
    license: text().optional(),
    compatibility: text().min(1, 'must be 1–500 characters').max(500, 'must be 1–500 characters').optional(),
    metadata: z.record(z.string(), text('every value must be a string (quote it in YAML)'), { error: 'must be a map of strings to strings' }).optional(),
    'allowed-tools': text('must be a string of space-separated tool names').optional(),
  })
  .strict();

/** What a front-matter field the spec does not define is told. */
export const unknownFrontMatterRule = `is not a field of the Agent Skills spec (allowed: ${specFields.join(', ')}; troupe's own settings go in troupe.yaml)`;

/** Every problem of a zod parse, each naming its field in `file`; an unknown key is told `unknownRule`. */
export function problemsOf(error: z.ZodError, file: string, unknownRule: string): SkillProblem[] {
  const problems: SkillProblem[] = [];
  for (const issue of error.issues) {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ file, field: path === '' ? key : `${path}.${key}`, rule: unknownRule });
    } else {
      problems.push({ file, field: path === '' ? '(whole)' : path, rule: issue.message });
    }
  }
  return problems;
}
