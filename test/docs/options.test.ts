import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDefault, markdownFiles, optionTables, projectRoot, regionsOf, renderTable } from '../../scripts/docsOptions.js';

// The option tables of the docs are written from the zod schemas by scripts/docsOptions.ts: a
// region that differs from what it would write is out of date, and this names the option.

/** The option of each row of a region that is not the row the schema gives, or that is missing or extra. */
function staleOptions(name: string, text: string): string[] {
  const table = optionTables[name];
  if (table === undefined) return [`<!-- options: ${name} --> names no table`];
  const rowsOf = (markdown: string): Map<string, string> =>
    new Map(
      markdown
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => [/^\| `([^`]+)`/.exec(line)?.[1] ?? line, line]),
    );
  const expected = rowsOf(renderTable(table));
  const written = rowsOf(text);
  const options = new Set([...expected.keys(), ...written.keys()]);
  const stale = [...options].filter((option) => expected.get(option) !== written.get(option)).map((option) => `${name}: ${option}`);
  if (stale.length === 0 && text !== `${renderTable(table)}\n`) stale.push(`${name}: the table's frame or row order`);
  return stale;
}

describe('option tables of the docs', () => {
  const regions = markdownFiles().flatMap((file) => regionsOf(readFileSync(join(projectRoot, file), 'utf8')).map((region) => ({ file, ...region })));

  it('every region is what `npx tsx scripts/docsOptions.ts` writes from the schemas', () => {
    const stale = regions.flatMap(({ file, name, text }) => staleOptions(name, text).map((problem) => `${file}: ${problem}`));
    expect(stale, 'run `npx tsx scripts/docsOptions.ts`').toEqual([]);
  });

  it('every table is in the docs once', () => {
    expect(regions.map(({ name }) => name).sort()).toEqual(Object.keys(optionTables).sort());
  });

  it('names the option whose default a region writes wrong', () => {
    const table = optionTables['runtime'];
    if (table === undefined) throw new Error('no runtime table');
    const written = renderTable(table).replace('| 25 |', '| 30 |');
    expect(staleOptions('runtime', `${written}\n`)).toEqual(['runtime: maxSteps']);
    expect(staleOptions('runtime', `${renderTable(table)}\n`)).toEqual([]);
  });

  it('writes defaults as a reader reads them', () => {
    expect(formatDefault('drainTimeoutMs', 30_000)).toBe('30 s');
    expect(formatDefault('maxTaskMs', 1_800_000)).toBe('30 min');
    expect(formatDefault('commitDelayMs', 10)).toBe('10 ms');
    expect(formatDefault('bodyLimitBytes', 1024 * 1024)).toBe('1 MiB');
    expect(formatDefault('maxMetadataBytes', 4096)).toBe('4 KiB');
    expect(formatDefault('mailboxLimit', 10_000)).toBe('10,000');
    expect(formatDefault('l2Threshold', 0.6)).toBe('0.6');
    expect(formatDefault('reapIdleChildrenAfterMs', null)).toBe('off (`null`)');
    expect(formatDefault('whileDisconnected', 'wait')).toBe("`'wait'`");
  });
});
