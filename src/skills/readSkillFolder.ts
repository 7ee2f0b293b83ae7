import { open, realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { YAMLParseError, parse } from 'yaml';
import { FrontMatterSchema, type SkillProblem, problemsOf, unknownFrontMatterRule } from './frontMatter.js';
import { type Skill, makeSkill } from './skill.js';
import type { SkillLimits } from './skillLimits.js';
import { TroupeSettingsSchema } from './troupeSettings.js';

/** The file of troupe's additions beside SKILL.md (triggers, steps); other clients ignore it. */
const troupeSettingsFile = 'troupe.yaml';

export type FolderResult =
  { readonly skill: Skill; readonly problems?: undefined } | { readonly skill?: undefined; readonly problems: readonly SkillProblem[] };

/**
 * Reads one skill folder: SKILL.md (its size bounded, its front matter parsed as YAML and checked
 * by the spec's rules, its name the folder's), then `troupe.yaml` when there is one. Every problem
 * found is returned, each naming file, field and rule.
 */
export async function readSkillFolder(dir: string, limits: Pick<SkillLimits, 'maxSkillFileBytes' | 'maxBodyChars'>): Promise<FolderResult> {
  const file = join(dir, 'SKILL.md');
  const text = (await readBounded(file, limits.maxSkillFileBytes)) ?? { file, field: '(file)', rule: 'is missing' };
  if (typeof text !== 'string') return { problems: [text] };
  const split = splitFrontMatter(text);
  if (split === null) return { problems: [{ file, field: '(front matter)', rule: 'SKILL.md must begin with YAML front matter between two --- lines' }] };
  const yaml = parseYaml(split.yaml, file);
  if ('problem' in yaml) return { problems: [yaml.problem] };
  const problems: SkillProblem[] = [];
  const front = FrontMatterSchema.safeParse(yaml.value ?? {});
  if (!front.success) problems.push(...problemsOf(front.error, file, unknownFrontMatterRule));
  const folder = basename(dir);
  const name = (yaml.value as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && name !== folder) problems.push({ file, field: 'name', rule: `must equal its folder's name (${folder})` });
  if (split.body.length > limits.maxBodyChars)
    problems.push({ file, field: '(body)', rule: `is ${split.body.length} characters, more than maxBodyChars (${limits.maxBodyChars})` });
  const settings = await readSettings(join(dir, troupeSettingsFile), limits.maxSkillFileBytes);
  if ('problems' in settings) problems.push(...settings.problems);
  if (problems.length > 0 || !front.success || 'problems' in settings) return { problems };
  return { skill: makeSkill(front.data, split.body, await realpath(dir), settings.value, []) };
}

/** A file's text, or the problem with it (not a file, more than `maxBytes`); undefined when there is no such file. */
async function readBounded(file: string, maxBytes: number): Promise<string | SkillProblem | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : { file, field: '(file)', rule: `cannot be read (${code ?? String(error)})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { file, field: '(file)', rule: 'is not a file' };
    if (stats.size > maxBytes) return { file, field: '(file)', rule: `is ${stats.size} bytes, more than maxSkillFileBytes (${maxBytes})` };
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The YAML between the opening and closing `---` lines, and the body after them; null without front matter. */
function splitFrontMatter(text: string): { yaml: string; body: string } | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return null;
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  if (end === -1) return null;
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n') };
}

function parseYaml(text: string, file: string): { value: unknown } | { problem: SkillProblem } {
  try {
    return { value: parse(text) as unknown };
  } catch (error) {
    const rule = error instanceof YAMLParseError ? `is not valid YAML: ${error.message.split('\n')[0] ?? ''}` : 'is not valid YAML';
    return { problem: { file, field: '(front matter)', rule } };
  }
}

async function readSettings(file: string, maxBytes: number): Promise<{ value: ReturnType<typeof TroupeSettingsSchema.parse> } | { problems: SkillProblem[] }> {
  const text = await readBounded(file, maxBytes);
  if (text === undefined) return { value: {} };
  if (typeof text !== 'string') return { problems: [text] };
  const yaml = parseYaml(text, file);
  if ('problem' in yaml) return { problems: [{ ...yaml.problem, field: '(file)' }] };
  const settings = TroupeSettingsSchema.safeParse(yaml.value ?? {});
  return settings.success ? { value: settings.data } : { problems: problemsOf(settings.error, file, 'is not a setting troupe.yaml knows') };
}
