import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSkillFile } from '../../src/skills/index.js';
import { skillsRoot, writeSkill } from './skillFolders.js';

const newRoot = skillsRoot();

/** A skill folder with a reference file, and a secret file beside the folder. */
async function folder(): Promise<{ dir: string; outside: string }> {
  const root = await newRoot();
  const dir = await realpath(await writeSkill(root, 'guide', ['name: guide', 'description: d'], 'Body', { 'references/guide.md': 'the guide' }));
  const outside = join(root, 'secret.txt');
  await writeFile(outside, 'secret');
  return { dir, outside };
}

describe("reading a skill's files", () => {
  it('reads a file inside the folder by its relative path', async () => {
    const { dir } = await folder();
    expect(await readSkillFile(dir, 'references/guide.md', 1_000)).toEqual({ ok: true, text: 'the guide' });
  });

  it('refuses a path with "..", an absolute path, and a missing file', async () => {
    const { dir, outside } = await folder();
    expect(await readSkillFile(dir, '../secret.txt', 1_000)).toEqual({
      ok: false,
      reason: '../secret.txt holds "..": only files inside the skill folder can be read',
    });
    expect(await readSkillFile(dir, 'references/../../secret.txt', 1_000)).toMatchObject({ ok: false });
    expect(await readSkillFile(dir, outside, 1_000)).toEqual({ ok: false, reason: `${outside} is absolute: give a path relative to the skill folder` });
    expect(await readSkillFile(dir, 'nothing.md', 1_000)).toEqual({ ok: false, reason: 'nothing.md does not exist in the skill folder' });
  });

  it('refuses a symbolic link whose target is outside the folder, file or folder, and follows one inside it', async () => {
    const { dir, outside } = await folder();
    await symlink(outside, join(dir, 'link.txt'));
    await symlink(join(dir, '..'), join(dir, 'up'));
    await symlink(join(dir, 'references', 'guide.md'), join(dir, 'inner.md'));
    expect(await readSkillFile(dir, 'link.txt', 1_000)).toEqual({ ok: false, reason: 'link.txt leads outside the skill folder (a symbolic link): refused' });
    expect(await readSkillFile(dir, 'up/secret.txt', 1_000)).toMatchObject({ ok: false, reason: expect.stringContaining('leads outside') as string });
    expect(await readSkillFile(dir, 'inner.md', 1_000)).toEqual({ ok: true, text: 'the guide' });
  });

  it('refuses a file over the size limit, and a folder', async () => {
    const { dir } = await folder();
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'assets', 'big.txt'), 'x'.repeat(2_000));
    expect(await readSkillFile(dir, 'assets/big.txt', 1_000)).toEqual({ ok: false, reason: 'assets/big.txt is 2000 bytes, more than maxFileReadBytes (1000)' });
    expect(await readSkillFile(dir, 'assets', 1_000)).toEqual({ ok: false, reason: 'assets is not a file' });
  });
});
