import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cliProcess.js';

// docs/skills.md shows docs/examples/skills.ts verbatim: it must run offline and end by itself.
describe('the example of docs/skills.md', () => {
  it('runs to the end with exit code 0', { timeout: 120_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'docs/examples/skills.ts'], { cwd: projectRoot });
    expect(stdout).toContain('activated release-notes by keyword');
    expect(stdout).toContain('activated word-count by pattern');
    expect(stdout).toContain("{ text: 'That request has 7 words.' } 2");
  });
});
