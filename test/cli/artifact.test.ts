import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactRef } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { png, renderSteps, renderTool, report } from '../support/artifactSociety.js';
import { type CliResult, projectRoot, runCli, troupeArgs } from '../support/cliProcess.js';

// `troupe artifact` and the artifacts `troupe messages` lists, each a child process reading a data
// dir a runtime left behind.

let dir: string;
let taskId: string;
let text: ArtifactRef;
let image: ArtifactRef;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'troupe-cli-artifacts-'));
  const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel(renderSteps()), tools: [renderTool()], logger: new MemoryLogger() });
  taskId = await rt.submit('render the report');
  await rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
  [text, image] = rt.artifacts(taskId) as [ArtifactRef, ArtifactRef];
  await rt.shutdown();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `troupe <args>` with its stdout on a terminal (a pseudo-terminal `script` makes), stdout and stderr together. */
function onTerminal(args: readonly string[]): Promise<CliResult> {
  const command = [process.execPath, ...troupeArgs(args)].map((part) => `'${part}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr: '' })));
}

describe('troupe artifact', () => {
  it('prints a text artifact on stdout', async () => {
    const printed = await runCli(['artifact', text.id, '--data-dir', dir]);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(report);
  });

  it('writes bytes to the file -o names', async () => {
    const file = join(dir, 'chart.png');
    const written = await runCli(['artifact', image.id, '-o', file, '--data-dir', dir]);
    expect(written.code).toBe(0);
    expect(written.stderr).toBe(`wrote chart.png (image/png, 8 bytes) to ${file}\n`);
    expect(new Uint8Array(await readFile(file))).toEqual(png);
  });

  it('refuses to write bytes to a terminal without -o, and prints text there', async () => {
    const refused = await onTerminal(['artifact', image.id, '--data-dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(`troupe: artifact ${image.id} (chart.png) is image/png bytes; not written to a terminal: give -o <file>, or pipe it`);
    const shown = await onTerminal(['artifact', text.id, '--data-dir', dir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('line of the report');
  });

  it('says so for an id it does not hold, and for one that is not an id', async () => {
    const unknown = await runCli(['artifact', '0'.repeat(32), '--data-dir', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`troupe: no artifact ${'0'.repeat(32)} in ${dir} (never stored, or evicted)\n`);
    const malformed = await runCli(['artifact', 'nope', '--data-dir', dir]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe('troupe: <id> must be 32 lower-case hex digits, got "nope"\n');
  });
});

describe('troupe messages', () => {
  it('lists the artifacts of the session, and the tool result that stored them', async () => {
    const listed = await runCli(['messages', taskId, '--data-dir', dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      `root → observer        node.tool_result [working]  render; artifact ${text.id} report.txt (text/plain, ${report.length} bytes);`,
    );
    expect(listed.stdout).toContain(`artifact ${text.id}  report.txt (text/plain, ${report.length} bytes)  of task ${taskId}\n`);
    expect(listed.stdout).toContain(`artifact ${image.id}  chart.png (image/png, 8 bytes)  of task ${taskId}\n`);
  });
});
