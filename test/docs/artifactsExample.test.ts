import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cliProcess.js';

// The example of docs/artifacts.md: the page shows the file exactly, and the file runs offline and exits 0.

const example = 'docs/examples/artifacts.ts';

describe('docs/artifacts.md', () => {
  it('shows its example file exactly, right after the marker naming it', () => {
    const page = readFileSync(join(projectRoot, 'docs/artifacts.md'), 'utf8');
    const block = page.split(`<!-- example: ${example} -->\n\`\`\`ts\n`)[1]?.split('```\n')[0];
    expect(block).toBe(readFileSync(join(projectRoot, example), 'utf8'));
  });

  it('runs its example to the end', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', example], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('q3.csv  text/csv: region,revenue');
    expect(stdout).toContain('"name":"chart.png","mediaType":"image/png","size":8}');
  });
});
