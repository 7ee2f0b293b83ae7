import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { SkillLimitsSchema, defineSkill, describeProblem, loadSkillFolders, readSkillFolder } from '../../src/skills/index.js';
import { skillsRoot, writeSkill } from './skillFolders.js';

const limits = SkillLimitsSchema.parse({});
const newRoot = skillsRoot();
const fixtures = resolve(import.meta.dirname, '../fixtures/skills');

/** The problems of one folder whose SKILL.md has these front-matter lines. */
async function problemsOf(
  front: readonly string[],
  folder = 'my-skill',
  extra: Record<string, string> = {},
): Promise<{ file: string; field: string; rule: string }[]> {
  const dir = await writeSkill(await newRoot(), folder, front, 'Body.', extra);
  const read = await readSkillFolder(dir, limits);
  return (read.problems ?? []).map((problem) => ({ ...problem, file: problem.file.slice(dir.length + 1) }));
}

describe('SKILL.md front matter, by the Agent Skills spec', () => {
  const good = ['name: my-skill', 'description: Does things. Use when things need doing.'];

  it.each([
    ['name missing', ['description: d'], 'name', 'is required'],
    ['name empty', ['name: ""', 'description: d'], 'name', 'must be 1–64 characters'],
    ['name too long', [`name: ${'a'.repeat(65)}`, 'description: d'], 'name', 'must be 1–64 characters'],
    ['name upper case', ['name: My-Skill', 'description: d'], 'name', 'may hold only lowercase letters a-z, digits and hyphens'],
    ['name with underscore', ['name: my_skill', 'description: d'], 'name', 'may hold only lowercase letters a-z, digits and hyphens'],
    ['name leading hyphen', ['name: -my-skill', 'description: d'], 'name', 'must not start or end with a hyphen'],
    ['name trailing hyphen', ['name: my-skill-', 'description: d'], 'name', 'must not start or end with a hyphen'],
    ['name double hyphen', ['name: my--skill', 'description: d'], 'name', 'must not hold two hyphens in a row'],
    ['name not a string', ['name: 42', 'description: d'], 'name', 'must be a string'],
    ['description missing', ['name: my-skill'], 'description', 'is required'],
    ['description empty', ['name: my-skill', 'description: "  "'], 'description', 'must not be empty'],
    ['description too long', ['name: my-skill', `description: ${'d'.repeat(1025)}`], 'description', 'must be at most 1,024 characters'],
    ['compatibility too long', [...good, `compatibility: ${'c'.repeat(501)}`], 'compatibility', 'must be 1–500 characters'],
    ['compatibility empty', [...good, 'compatibility: ""'], 'compatibility', 'must be 1–500 characters'],
    ['license not a string', [...good, 'license: [MIT]'], 'license', 'must be a string'],
    ['metadata not a map', [...good, 'metadata: just text'], 'metadata', 'must be a map of strings to strings'],
    ['metadata value not a string', [...good, 'metadata:', '  version: 1.0'], 'metadata.version', 'every value must be a string (quote it in YAML)'],
    ['allowed-tools not a string', [...good, 'allowed-tools: [Read, Bash]'], 'allowed-tools', 'must be a string of space-separated tool names'],
    [
      'a field the spec does not define',
      [...good, 'triggers: [pdf]'],
      'triggers',
      expect.stringContaining('is not a field of the Agent Skills spec') as string,
    ],
  ])('refuses %s, naming the file and the field', async (_, front, field, rule) => {
    const problems = await problemsOf(front);
    expect(problems).toContainEqual({ file: 'SKILL.md', field, rule });
  });

  it("refuses a name that is not its folder's", async () => {
    expect(await problemsOf(good, 'other-folder')).toEqual([{ file: 'SKILL.md', field: 'name', rule: "must equal its folder's name (other-folder)" }]);
  });

  it('refuses a SKILL.md without front matter, and front matter that is not YAML', async () => {
    const root = await newRoot();
    const dir = join(root, 'plain');
    await writeSkill(root, 'plain', []);
    await import('node:fs/promises').then(({ writeFile }) => writeFile(join(dir, 'SKILL.md'), '# no front matter\n'));
    expect((await readSkillFolder(dir, limits)).problems).toEqual([
      { file: join(dir, 'SKILL.md'), field: '(front matter)', rule: 'SKILL.md must begin with YAML front matter between two --- lines' },
    ]);
    const broken = await problemsOf(['name: [unclosed', 'description: d']);
    expect(broken[0]).toMatchObject({ file: 'SKILL.md', field: '(front matter)', rule: expect.stringMatching(/^is not valid YAML: /) as string });
  });

  it('reports every problem of a file, not only the first', async () => {
    const problems = await problemsOf(['name: Bad--Name', 'description: ""', 'colour: blue']);
    expect(problems.map((problem) => problem.field).sort()).toEqual(['colour', 'description', 'name', 'name', 'name']);
  });

  it("refuses troupe.yaml's mistakes naming troupe.yaml and the setting", async () => {
    const problems = await problemsOf(good, 'my-skill', {
      'troupe.yaml': 'triggers:\n  patterns: ["(unclosed"]\nsteps:\n  - name: a\n    tool: t\n  - name: a\n    tool: t\nwhen: always\n',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { file: 'troupe.yaml', field: 'triggers.patterns[0]', rule: 'is not a valid regular expression' },
        { file: 'troupe.yaml', field: 'steps[1]', rule: 'a step named a comes twice' },
        { file: 'troupe.yaml', field: 'when', rule: 'is not a setting troupe.yaml knows' },
      ]),
    );
  });

  it('loads a conformant skill folder written for another client unchanged', async () => {
    const dir = join(fixtures, 'pdf-processing');
    const read = await readSkillFolder(dir, limits);
    expect(read.problems).toBeUndefined();
    const skill = read.skill;
    expect(skill).toMatchObject({
      name: 'pdf-processing',
      license: 'Apache-2.0',
      compatibility: 'Requires python3 and the pypdf package',
      metadata: { author: 'example-org', version: '1.0' },
      allowedTools: ['Bash(python3:*)', 'Read'],
      triggers: {},
      steps: undefined,
    });
    expect(skill?.description).toMatch(/^Extract text and tables from PDF files/);
    const text = await readFile(join(dir, 'SKILL.md'), 'utf8');
    expect(skill?.body).toBe(text.slice(text.indexOf('# PDF processing')).trim());
  });
});

describe('loading folders of skills', () => {
  it('loads the good skills of a folder and names every problem of the bad ones', async () => {
    const root = await newRoot();
    await writeSkill(root, 'alpha', ['name: alpha', 'description: First.']);
    await writeSkill(root, 'beta', ['name: beta', 'description: ""']);
    await writeSkill(root, 'gamma', ['name: gamma', 'description: Third.']);
    const loaded = await loadSkillFolders([root], limits);
    expect(loaded.skills.map((skill) => skill.name)).toEqual(['alpha', 'gamma']);
    expect(loaded.problems.map(describeProblem)).toEqual([`${join(root, 'beta', 'SKILL.md')}: description: must not be empty`]);
  });

  it('refuses what is past each bound, saying which bound: skills loaded, SKILL.md bytes, body characters', async () => {
    const root = await newRoot();
    await writeSkill(root, 'a', ['name: a', 'description: A.']);
    await writeSkill(root, 'b', ['name: b', 'description: B.']);
    await writeSkill(root, 'c', ['name: c', 'description: C.'], 'x'.repeat(200));
    const few = await loadSkillFolders([root], SkillLimitsSchema.parse({ maxSkills: 1 }));
    expect(few.skills.map((skill) => skill.name)).toEqual(['a']);
    expect(few.problems.map((problem) => problem.rule)).toEqual([
      'not loaded: maxSkills (1) skills are loaded already',
      'not loaded: maxSkills (1) skills are loaded already',
    ]);
    const small = await loadSkillFolders([root], SkillLimitsSchema.parse({ maxSkillFileBytes: 100 }));
    expect(small.problems).toEqual([
      { file: join(root, 'c', 'SKILL.md'), field: '(file)', rule: expect.stringMatching(/more than maxSkillFileBytes \(100\)$/) as string },
    ]);
    const short = await loadSkillFolders([root], SkillLimitsSchema.parse({ maxBodyChars: 100 }));
    expect(short.problems).toEqual([
      { file: join(root, 'c', 'SKILL.md'), field: '(body)', rule: expect.stringMatching(/more than maxBodyChars \(100\)$/) as string },
    ]);
  });

  it('names a folder that does not exist', async () => {
    const missing = join(await newRoot(), 'nowhere');
    expect((await loadSkillFolders([missing], limits)).problems).toEqual([{ file: missing, field: '(folder)', rule: 'does not exist' }]);
  });
});

describe('defineSkill', () => {
  it('checks a skill made in code by the same rules, naming the field', () => {
    expect(() => defineSkill({ name: 'Bad Name', description: 'd' })).toThrow(ValidationError);
    expect(() => defineSkill({ name: 'Bad Name', description: 'd' })).toThrow(/^name: may hold only lowercase letters/);
    expect(() => defineSkill({ name: 'ok', description: 'd', triggers: { patterns: ['('] } })).toThrow(
      /^triggers\.patterns\[0\]: is not a valid regular expression/,
    );
    expect(defineSkill({ name: 'ok', description: 'd', body: '  Steps.  ' })).toMatchObject({ name: 'ok', body: 'Steps.', dir: null });
  });
});
