import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

const tempDir = tempDirsAfterEach('troupe-cli-replay-');

describe('troupe run --record, then troupe replay', () => {
  it('replays the recorded run offline, printing the same Tasks; a changed recording exits 5 with a diff, a damaged one 2', async () => {
    const dir = await tempDir();
    const file = join(dir, 'haiku.jsonl');
    const run = await runCli(['run', 'write a haiku about rain', '--no-status', '--memory', '--record', file]);
    expect(run.code, run.stderr).toBe(0);

    const replay = await runCli(['replay', file]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toMatch(/troupe: replayed \d+ Tasks of .*haiku\.jsonl offline, the same as recorded/);

    const changed = join(dir, 'snow.jsonl');
    // The user's requirement as the recording will send it again: the model is then asked about snow, which it never was.
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(changed, lines.map((line) => (line.startsWith('{"k":"task"') ? line.replaceAll('about rain', 'about snow') : line)).join('\n'));
    const diverged = await runCli(['replay', changed]);
    expect(diverged.code, diverged.stderr).toBe(5);
    expect(diverged.stderr).toContain('asked something the recording does not have');
    expect(diverged.stderr).toMatch(/^- .*write a haiku about rain/m);
    expect(diverged.stderr).toMatch(/^\+ .*write a haiku about snow/m);

    const damaged = join(dir, 'damaged.jsonl');
    writeFileSync(damaged, readFileSync(file, 'utf8').split('\n').slice(0, 4).join('\n').concat('\n{"k":'));
    const refused = await runCli(['replay', damaged]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('line 5 is not JSON');
  });
});
