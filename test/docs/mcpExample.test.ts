import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cliProcess.js';

// docs/mcp.md's example: the ts block is the file exactly, and the file (run with tsx, as docs/ is not
// among the sources the global setup transpiles) runs to the end and exits 0.

describe('docs/mcp.md example', () => {
  it('the ts block is docs/examples/mcp.ts, which runs offline and exits 0', { timeout: 60_000 }, async () => {
    const doc = readFileSync(join(projectRoot, 'docs/mcp.md'), 'utf8');
    const example = readFileSync(join(projectRoot, 'docs/examples/mcp.ts'), 'utf8');
    expect(doc).toContain(['<!-- example: docs/examples/mcp.ts -->', '```ts', example].join('\n') + '```');
    const child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/mcp.ts'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    expect(output).toContain('the server said: Echo: hello from troupe');
  });
});
