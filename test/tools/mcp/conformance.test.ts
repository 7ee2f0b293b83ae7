import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, transpiledPath } from '../../support/cliProcess.js';

// The official MCP conformance kit in client mode, on loopback: for each scenario it starts a
// test server, runs troupe's client entry (test/fixtures/mcp/conformanceClient.ts) against it and
// checks what the server saw. Expected failures, with their reasons, are in the baseline file:
// the kit fails a run on a failure not listed there and on a listed one that passes.

const kit = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const baseline = join(projectRoot, 'test/fixtures/mcp/conformance-baseline.yml');
const client = `"${process.execPath}" "${join(projectRoot, transpiledPath('test/fixtures/mcp/conformanceClient.ts'))}"`;

/** The core suite's scenarios that are not OAuth flows (those are in the baseline; see it for why they are not run here). */
const scenarios = ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'];

function runKit(scenario: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [kit, 'client', '--command', client, '--scenario', scenario, '--expected-failures', baseline, '--timeout', '60000', '-o', outputDir],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance kit, client mode', () => {
  it.each(scenarios)('%s passes, or fails as the baseline expects', { timeout: 120_000 }, async (scenario) => {
    const outputDir = mkdtempSync(join(tmpdir(), 'troupe-mcp-conformance-'));
    try {
      const { code, output } = await runKit(scenario, outputDir);
      expect(code, output).toBe(0);
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
    }
  });
});
