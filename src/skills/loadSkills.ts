import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SkillProblem } from './frontMatter.js';
import { readSkillFolder } from './readSkillFolder.js';
import type { Skill } from './skill.js';
import type { SkillLimits } from './skillLimits.js';

/** What loading folders of skills found: the skills that passed, and every problem of the others. */
export interface LoadedSkills {
  readonly skills: readonly Skill[];
  readonly problems: readonly SkillProblem[];
}

/**
 * Loads skills from folders: a folder holding a SKILL.md is one skill; any other folder is a
 * collection whose sub-folders holding a SKILL.md are skills (in name order). A bad skill is left
 * out and its problems returned; the others load. Past `maxSkills`, or under a name already
 * loaded, a skill is refused too.
 */
export async function loadSkillFolders(dirs: readonly string[], limits: SkillLimits, already: ReadonlySet<string> = new Set()): Promise<LoadedSkills> {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const names = new Set(already);
  for (const dir of dirs) {
    const found = await skillFolders(resolve(dir));
    if (!Array.isArray(found)) {
      problems.push(found);
      continue;
    }
    for (const folder of found) {
      const read = await readSkillFolder(folder, limits);
      if (read.problems !== undefined) {
        problems.push(...read.problems);
        continue;
      }
      const file = join(folder, 'SKILL.md');
      if (names.has(read.skill.name)) problems.push({ file, field: 'name', rule: `a skill named ${read.skill.name} is already loaded` });
      else if (names.size >= limits.maxSkills)
        problems.push({ file, field: '(skill)', rule: `not loaded: maxSkills (${limits.maxSkills}) skills are loaded already` });
      else {
        names.add(read.skill.name);
        skills.push(read.skill);
      }
    }
  }
  return { skills, problems };
}

/** The skill folders `dir` holds: itself when it has a SKILL.md, else its sub-folders that have one. */
async function skillFolders(dir: string): Promise<string[] | SkillProblem> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { file: dir, field: '(folder)', rule: code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})` };
  }
  if (entries.some((entry) => entry.name === 'SKILL.md')) return [dir];
  const folders: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const folder = join(dir, entry.name);
    const skillFile = await stat(join(folder, 'SKILL.md')).catch(() => null);
    if (skillFile !== null) folders.push(folder);
  }
  return folders;
}
