import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess.js';

// `troupe skills`, `troupe skills validate` and `troupe run --skills`, each a child process.
const fixtures = resolve(import.meta.dirname, '../fixtures/skills');
const slow = { timeout: 120_000 };
let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-skills-cli-'));
  await mkdir(join(base, 'Bad_Name'));
  await writeFile(join(base, 'Bad_Name', 'SKILL.md'), '---\nname: Bad_Name\ndescription: ""\ntriggers: [x]\n---\nBody\n');
  await mkdir(join(base, 'fine'));
  await writeFile(join(base, 'fine', 'SKILL.md'), '---\nname: fine\ndescription: A fine skill.\n---\nBody\n');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('troupe skills', () => {
  it('validate exits 2 naming every problem of every folder, file, field and rule', slow, async () => {
    const result = await runCli(['skills', 'validate', base, fixtures]);
    expect(result.code).toBe(2);
    const file = join(base, 'Bad_Name', 'SKILL.md');
    expect(result.stderr.split('\n').filter((line) => line !== '')).toEqual([
      `${file}: name: may hold only lowercase letters a-z, digits and hyphens`,
      `${file}: description: must not be empty`,
      `${file}: triggers: is not a field of the Agent Skills spec (allowed: name, description, license, compatibility, metadata, allowed-tools; troupe's own settings go in troupe.yaml)`,
    ]);
    expect(result.stdout).toBe('3 skills valid, 3 problems\n');
    const clean = await runCli(['skills', 'validate', fixtures]);
    expect(clean.code, clean.stderr).toBe(0);
  });

  it('lists the skills of --dir and TROUPE_SKILLS, and which a text would activate, as JSON', slow, async () => {
    const result = await runCli(['skills', '--dir', fixtures, '--match', 'may I bring a dog?', '--json'], { TROUPE_SKILLS: join(base, 'fine') });
    expect(result.code, result.stderr).toBe(0);
    const shown = JSON.parse(result.stdout) as { skills: { name: string; steps: number }[]; matches: unknown[] };
    expect(shown.skills.map((skill) => [skill.name, skill.steps])).toEqual([
      ['house-rules', 1],
      ['pdf-processing', 0],
      ['fine', 0],
    ]);
    expect(shown.matches).toEqual([{ skill: 'house-rules', by: 'pattern', score: 1 }]);
  });

  it('run --skills answers with a steps skill, with no model call', slow, async () => {
    const result = await runCli(['run', '--memory', '--no-status', '--skills', fixtures, 'what are the house rules?']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The house rules:\n1. Quiet hours are 22:00 to 07:00.');
    expect(result.stderr).toContain('0 model calls');
  });
});
