import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { runCli } from '../support/cliProcess.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

// `troupe memory import` run as a child process on a data dir a real runtime made: a JSON Lines
// file of facts and turns into root's long-term memory, found again by `troupe memory --search`
// and by the next runtime; a file with bad lines refused naming each line, nothing stored.

const tempDir = tempDirsAfterEach('troupe-memory-import-');
const slow = { timeout: 120_000 };

async function organisation(): Promise<string> {
  const dir = join(await tempDir(), 'org');
  const rt = await createRuntime({ dataDir: dir });
  await rt.shutdown();
  return dir;
}

const lines = (...items: unknown[]): string => items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n');

describe('troupe memory import', () => {
  it('imports facts and turns, which the next search and the next runtime find with their metadata', slow, async () => {
    const dir = await organisation();
    const file = join(dir, '..', 'items.jsonl');
    await writeFile(
      file,
      lines({ text: 'The user prefers answers in French.', metadata: { source: 'crm' } }, '', {
        kind: 'turn',
        speaker: 'Ana',
        text: 'My sister Lena lives in Porto.',
        at: '2024-03-01T10:00:00Z',
        conversation: 'chat-1',
      }),
    );
    const imported = await runCli(['memory', 'import', 'root', file, '--data-dir', dir, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout) as { stored: number; facts: { item: number; text: string }[] };
    expect(report.stored).toBe(2);
    expect(report.facts.map((fact) => [fact.item, fact.text])).toEqual([
      [0, 'The user prefers answers in French.'],
      [1, 'Ana: My sister Lena lives in Porto.'],
    ]);

    const found = await runCli(['memory', 'root', '--data-dir', dir, '--search', 'where does Lena live', '--k', '1', '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ text: 'Ana: My sister Lena lives in Porto.', metadata: { speaker: 'Ana', conversation: 'chat-1' } });

    const rt = await createRuntime({ dataDir: dir });
    const view = await rt.memory('root', { search: 'which language for answers?', k: 1 });
    expect(view.counts.l4).toBe(2);
    expect(view.entries[0]).toMatchObject({ text: 'The user prefers answers in French.', metadata: { source: 'crm' } });
    await rt.shutdown();
  });

  it('refuses a file with bad lines, naming each by its line, and stores nothing', slow, async () => {
    const dir = await organisation();
    const notJson = join(dir, '..', 'broken.jsonl');
    await writeFile(notJson, lines({ text: 'fine' }, '{"text": "cut off'));
    const broken = await runCli(['memory', 'import', 'root', notJson, '--data-dir', dir]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('line 2: not JSON');

    const bad = join(dir, '..', 'bad.jsonl');
    await writeFile(bad, lines({ text: 'fine' }, '', { kind: 'turn', text: 'who said it?' }, { text: 'x'.repeat(600) }));
    const refused = await runCli(['memory', 'import', 'root', bad, '--data-dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('line 3: speaker');

    const long = join(dir, '..', 'long.jsonl');
    await writeFile(long, lines({ text: 'fine' }, { text: 'x'.repeat(600) }));
    const tooLong = await runCli(['memory', 'import', 'root', long, '--data-dir', dir]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toMatch(/line 2: text: is 600 characters, more than maxFactChars \(500\)/);

    const unknown = await runCli(['memory', 'import', 'nobody', long, '--data-dir', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no agent nobody');

    const counts = await runCli(['memory', 'root', '--data-dir', dir, '--tier', 'l4', '--json']);
    expect(counts.stdout).toBe('');
  });
});
