import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingWriter } from '../../src/replay/recordingWriter.js';
import { type RecordingHeader, recordingFormatVersion } from '../../src/replay/recordingFormat.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

const tempDir = tempDirsAfterEach('troupe-recording-writer-');
const header: RecordingHeader = { k: 'header', format: 'troupe-recording', version: recordingFormatVersion, models: [], settings: {} };

describe('the recording writer', () => {
  it('writes every line in order, a batch at a time, all out once closed', async () => {
    const file = join(await tempDir(), 'lines.jsonl');
    const writer = new RecordingWriter(file, header, 10_000_000);
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ k: 'note', kind: 'n', key: String(i), value: 'x'.repeat(i % 200) }));
    // Several batches of 64 KB, and batches of what a turn of the event loop or more held.
    for (const [i, line] of lines.entries()) {
      writer.line(line);
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    writer.close();
    expect(readFileSync(file, 'utf8')).toBe(`${[JSON.stringify(header), ...lines].join('\n')}\n`);
    expect(writer.bytes).toBe(readFileSync(file).length);
  });

  it('past its limit writes the limit line after what it holds, and nothing more', async () => {
    const file = join(await tempDir(), 'limit.jsonl');
    const writer = new RecordingWriter(file, header, 200_000);
    const line = JSON.stringify({ k: 'note', kind: 'n', key: 'k', value: 'y'.repeat(1000) });
    for (let i = 0; i < 300; i++) writer.line(line);
    expect(writer.full).toBe(true);
    writer.close();
    const written = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(written.at(-1)).toBe(JSON.stringify({ k: 'limit', maxBytes: 200_000 }));
    expect(written.slice(1, -1).every((each) => each === line)).toBe(true);
    expect(readFileSync(file).length).toBeLessThanOrEqual(200_000);
  });
});
