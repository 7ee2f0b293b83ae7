import type { Command } from 'commander';
import { embeddingsFromEnv } from '../llm/index.js';
import { HashedNgramEmbedder } from '../memory/embedding/hashedNgramEmbedder.js';
// The modules themselves, not the folder's index: listing skills loads no runtime part.
import { describeProblem } from '../skills/frontMatter.js';
import { type LoadedSkills, loadSkillFolders } from '../skills/loadSkills.js';
import type { Skill } from '../skills/skill.js';
import { SkillLimitsSchema } from '../skills/skillLimits.js';
import { SkillMatcher } from '../skills/skillMatcher.js';
import { matchSummary, skillSummary } from '../skills/skillSummary.js';
import { type CliEnv, type CliIo, reportFailure } from './cliIo.js';
import { readSkillDirs } from './environment.js';
import { ExitCode } from './exitCodes.js';

export interface SkillsListOptions {
  /** `--dir`, repeatable; `TROUPE_SKILLS` is read as well. */
  readonly dirs: readonly string[];
  readonly match?: string;
  readonly json: boolean;
}

/** A skill as `troupe skills --json` shows it: its summary and the folder it was read from. */
const summary = (skill: Skill): Record<string, unknown> => ({ ...skillSummary(skill), dir: skill.dir });

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

async function load(dirs: readonly string[], env: CliEnv): Promise<LoadedSkills> {
  return loadSkillFolders(readSkillDirs(dirs, env), SkillLimitsSchema.parse({}));
}

/**
 * `troupe skills`: the skills of `--dir` and `TROUPE_SKILLS`, each with its triggers; with
 * `--match`, the skills a Task of that text would activate and why. The problems of skills
 * refused go to stderr; the listing exits 0 all the same (see `troupe skills validate`).
 */
async function listSkills(options: SkillsListOptions, io: CliIo): Promise<ExitCode> {
  try {
    const loaded = await load(options.dirs, io.env);
    for (const problem of loaded.problems) io.stderr.write(`skill refused: ${describeProblem(problem)}\n`);
    const embedder = embeddingsFromEnv(io.env) ?? new HashedNgramEmbedder();
    const matches = options.match === undefined ? undefined : await new SkillMatcher(loaded.skills, embedder).match(options.match);
    if (options.json) {
      const shown = {
        skills: loaded.skills.map(summary),
        problems: loaded.problems,
        ...(matches === undefined ? {} : { matches: matches.map(matchSummary) }),
      };
      io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (matches !== undefined) {
      if (matches.length === 0) io.stdout.write('no skill would activate\n');
      for (const match of matches) io.stdout.write(`${match.skill.name}  (${match.by}${match.by === 'semantic' ? ` ${match.score.toFixed(2)}` : ''})\n`);
      return ExitCode.ok;
    }
    if (loaded.skills.length === 0) io.stdout.write('no skills loaded (give --dir <folder> or set TROUPE_SKILLS)\n');
    for (const skill of loaded.skills) {
      const { keywords = [], patterns = [], semantic } = skill.triggers;
      const triggers = [
        ...(keywords.length === 0 ? [] : [`keywords: ${keywords.join(', ')}`]),
        ...(patterns.length === 0 ? [] : [`patterns: ${patterns.join(' ')}`]),
        ...(semantic === undefined ? [] : ['semantic']),
        ...(skill.steps === undefined ? [] : [`${skill.steps.length} tool steps`]),
      ];
      io.stdout.write(`${skill.name}  ${oneLine(skill.description, 100)}\n`);
      if (triggers.length > 0) io.stdout.write(`  ${triggers.join(' · ')}\n`);
    }
    return ExitCode.ok;
  } catch (error) {
    return reportFailure(io, error, 'cannot list skills');
  }
}

/** `troupe skills validate <dir...>`: checks every skill folder, naming every problem; exits non-zero when there is any. */
async function validateSkills(dirs: readonly string[], io: CliIo): Promise<ExitCode> {
  try {
    const loaded = await loadSkillFolders(dirs, SkillLimitsSchema.parse({}));
    for (const problem of loaded.problems) io.stderr.write(`${describeProblem(problem)}\n`);
    const problems = loaded.problems.length;
    io.stdout.write(`${loaded.skills.length} skill${loaded.skills.length === 1 ? '' : 's'} valid, ${problems} problem${problems === 1 ? '' : 's'}\n`);
    return problems === 0 ? ExitCode.ok : ExitCode.usage;
  } catch (error) {
    return reportFailure(io, error, 'cannot validate skills');
  }
}

/** Registers `troupe skills` and `troupe skills validate`. */
export function registerSkillsCommand(program: Command, io: CliIo): void {
  const skills = program
    .command('skills')
    .description('list the skills of --dir and TROUPE_SKILLS, or which ones a text would activate (--match)')
    .option('--dir <folder>', 'a skill folder, or a folder of them (repeatable)', (value: string, previous: string[] | undefined) => [
      ...(previous ?? []),
      value,
    ])
    .option('--match <text>', 'show the skills a Task with this text would activate, and why')
    .option('--json', 'print JSON', false)
    .action(async (options: { dir?: string[]; match?: string; json: boolean }) => {
      process.exitCode = await listSkills(
        { dirs: options.dir ?? [], json: options.json, ...(options.match === undefined ? {} : { match: options.match }) },
        io,
      );
    });
  skills
    .command('validate')
    .description('check skill folders against the Agent Skills spec (and troupe.yaml); exits 2 naming every problem')
    .argument('<folders...>', 'skill folders, or folders of them')
    .action(async (folders: string[]) => {
      process.exitCode = await validateSkills(folders, io);
    });
}
