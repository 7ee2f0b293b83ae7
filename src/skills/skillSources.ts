import type { SkillProblem } from './frontMatter.js';
import { type LoadedSkills, loadSkillFolders } from './loadSkills.js';
import type { Skill } from './skill.js';
import type { SkillLimits } from './skillLimits.js';

/** Where skills come from: one made in code (`defineSkill`), or a folder (a skill, or a folder of skills). */
export type SkillSource = Skill | string;

/**
 * Every skill of `sources`, in order: skills from code as they are, folders read from disk. A bad
 * skill (or one past `maxSkills`, or a second of one name) is left out and its problems returned.
 */
export async function loadSkillSources(sources: readonly SkillSource[], limits: SkillLimits): Promise<LoadedSkills> {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const names = new Set<string>();
  for (const source of sources) {
    if (typeof source === 'string') {
      const loaded = await loadSkillFolders([source], { ...limits, maxSkills: Math.max(0, limits.maxSkills - skills.length) }, names);
      for (const skill of loaded.skills) names.add(skill.name);
      skills.push(...loaded.skills);
      problems.push(...loaded.problems);
      continue;
    }
    const file = `skill ${source.name} (from code)`;
    if (names.has(source.name)) problems.push({ file, field: 'name', rule: `a skill named ${source.name} is already loaded` });
    else if (skills.length >= limits.maxSkills)
      problems.push({ file, field: '(skill)', rule: `not loaded: maxSkills (${limits.maxSkills}) skills are loaded already` });
    else {
      names.add(source.name);
      skills.push(source);
    }
  }
  return { skills, problems };
}
