import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess.js';
import { damagedFolders, dataFile, garbleRandomBytes, truncateData, writeStore } from '../support/damagedStore.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function storeDir(damage: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-damaged-'));
  dirs.push(dir);
  await writeStore(dir, 200);
  await damage(dir);
  return dir;
}

const halve = (dir: string): Promise<void> => truncateData(dir, 0.5);

/** No stack trace reached the user: no `    at …` frames. */
const noStackTrace = (stderr: string): void => expect(stderr).not.toMatch(/^\s+at /m);

describe('troupe on a damaged store (child processes)', () => {
  it('run: moves a truncated store aside, logs an error naming the folder, and answers from an empty organisation', async () => {
    const dir = await storeDir(halve);
    const result = await runCli(['run', 'write a haiku about rain', '--no-status', '--data-dir', dir]);
    expect(result.code).toBe(0);
    const [folder] = await damagedFolders(dir);
    expect(folder).toBeDefined();
    const line = result.stderr.split('\n').find((text) => text.includes('the org store is damaged'));
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 50, movedTo: join(dir, folder ?? ''), reason: expect.stringContaining('truncated') as unknown });
  }, 60_000);

  it('run --strict-store: refuses to start with exit 2 and a message, and leaves the store as it is', async () => {
    const dir = await storeDir(halve);
    const before = await readFile(dataFile(dir));
    const result = await runCli(['run', 'write a haiku', '--no-status', '--strict-store', '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the org store in ${dir} is damaged: data.mdb: `);
    noStackTrace(result.stderr);
    expect(await readFile(dataFile(dir))).toEqual(before);
    expect(await damagedFolders(dir)).toEqual([]);
  }, 60_000);

  it('serve --strict-store: refuses to start with exit 2', async () => {
    const dir = await storeDir(halve);
    const result = await runCli(['serve', '--port', '0', '--no-console', '--strict-store', '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is damaged');
    expect(await damagedFolders(dir)).toEqual([]);
  }, 60_000);

  it('org: refuses a damaged store with exit 2 and never moves it', async () => {
    const dir = await storeDir(halve);
    const result = await runCli(['org', '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot read the organisation at ${dir}: the org store in ${dir} is damaged`);
    expect(await damagedFolders(dir)).toEqual([]);
  }, 60_000);

  it.each([[['run', 'hi', '--no-status']], [['org']]])(
    '%j --data-dir naming a file: exit 2 with a message, not a stack trace',
    async (args) => {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-file-'));
      dirs.push(dir);
      const file = join(dir, 'a-file');
      await writeFile(file, 'not a store');
      const result = await runCli([...args, '--data-dir', file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${file} is not a directory`);
      noStackTrace(result.stderr);
    },
    60_000,
  );

  it('--strict-store with --memory is a usage error', async () => {
    const result = await runCli(['run', 'hi', '--memory', '--strict-store']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--strict-store.*cannot be used with.*--memory|--memory.*cannot be used with.*--strict-store/);
  }, 60_000);

  it('never dies of a signal on a store with random bytes garbled: it runs on the store or sets it aside', async () => {
    for (const seed of [1, 2]) {
      const dir = await storeDir((into) => garbleRandomBytes(into, seed, 40));
      const result = await runCli(['run', 'write a haiku', '--no-status', '--data-dir', dir]);
      // A native crash ends the process by a signal: code null.
      expect({ seed, code: result.code }).toEqual({ seed, code: 0 });
    }
  }, 120_000);
});
