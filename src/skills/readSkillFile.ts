import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** A skill file's text, or why it was refused. */
export type SkillFileRead = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/**
 * Reads a file of a skill's folder by its path relative to that folder, refusing any way out of it:
 * an absolute path, a `..` segment, and a symbolic link whose real path is outside the folder
 * (`dir` is a real path; the file's is resolved before it is opened). Refuses a file over
 * `maxBytes` rather than cutting it.
 */
export async function readSkillFile(dir: string, path: string, maxBytes: number): Promise<SkillFileRead> {
  if (path.trim() === '') return { ok: false, reason: 'give a path relative to the skill folder, e.g. references/guide.md' };
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path)) return { ok: false, reason: `${path} is absolute: give a path relative to the skill folder` };
  if (path.split(/[\\/]/).includes('..')) return { ok: false, reason: `${path} holds "..": only files inside the skill folder can be read` };
  let real: string;
  try {
    real = await realpath(resolve(dir, path));
  } catch {
    return { ok: false, reason: `${path} does not exist in the skill folder` };
  }
  const inside = relative(dir, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    return { ok: false, reason: `${path} leads outside the skill folder (a symbolic link): refused` };
  }
  const handle = await open(real, 'r');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: `${path} is not a file` };
    if (stats.size > maxBytes) return { ok: false, reason: `${path} is ${stats.size} bytes, more than maxFileReadBytes (${maxBytes})` };
    return { ok: true, text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
