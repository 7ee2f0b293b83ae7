import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cliProcess.js';

// Until the docs' own example test is on this branch: docs/handoffs.md's example is the file, and the file runs offline to exit 0.
const examples = ['docs/examples/handoffs.ts', 'docs/examples/inheritance.ts'];

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe.each(examples)('docs/handoffs.md: %s', (example) => {
  it('shows the example file exactly, after its marker', () => {
    const page = readFileSync(`${projectRoot}/docs/handoffs.md`, 'utf8');
    const marker = `<!-- example: ${example} -->\n\`\`\`ts\n`;
    const at = page.indexOf(marker);
    expect(at, 'the marker and the fence right after it').toBeGreaterThanOrEqual(0);
    const start = at + marker.length;
    const shown = page.slice(start, page.indexOf('\n```', start) + 1);
    expect(shown).toBe(readFileSync(`${projectRoot}/${example}`, 'utf8'));
  });

  it('runs its example offline to exit 0', async () => {
    const { code, stdout, stderr } = await run(example);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toBe('');
  }, 60_000);
});
