import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A temp folder removed after each test, where tests write skill folders. */
export function skillsRoot(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-skills-'));
    made.push(dir);
    return dir;
  };
}

/** Writes `<root>/<folder>/SKILL.md` from front-matter lines and a body, and any other files given; returns the folder. */
export async function writeSkill(
  root: string,
  folder: string,
  front: readonly string[],
  body = 'Do the thing well.',
  files: Record<string, string> = {},
): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), ['---', ...front, '---', '', body, ''].join('\n'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
