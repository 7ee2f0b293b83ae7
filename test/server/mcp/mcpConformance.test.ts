import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../support/cliProcess.js';
import { serve } from '../../support/httpServerFixture.js';

// The official MCP conformance kit in server mode, every scenario of its active suite in one run,
// against /mcp of a live in-process server on loopback. The scenarios troupe fails by design
// (fixtures of the kit's reference server, prompts, completions, subscriptions) are listed with
// their reasons in the baseline: the kit fails the run on a failure not listed and on a listed pass.

const kit = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const baseline = join(projectRoot, 'test/fixtures/mcp/conformance-server-baseline.yml');

/** Scenarios that must pass, each check of them a success. */
const passing = ['server-initialize', 'logging-set-level', 'ping', 'tools-list', 'tools-call-error', 'resources-list', 'dns-rebinding-protection'];

function runKit(url: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [kit, 'server', '--url', url, '--expected-failures', baseline, '-o', outputDir], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance kit, server mode, against /mcp', () => {
  it('passes every scenario but those the baseline lists', { timeout: 120_000 }, async () => {
    const served = await serve({ memory: true });
    const outputDir = mkdtempSync(join(tmpdir(), 'troupe-mcp-server-conformance-'));
    try {
      const { code, output } = await runKit(`${served.url}/mcp`, outputDir);
      expect(code, output).toBe(0);
      const runs = readdirSync(outputDir);
      for (const scenario of passing) {
        const run = runs.find((name) => name.startsWith(`server-${scenario}-`));
        expect(run, `${scenario} ran`).toBeDefined();
        const checks = JSON.parse(readFileSync(join(outputDir, run ?? '', 'checks.json'), 'utf8')) as { id: string; status: string }[];
        expect(checks.length, scenario).toBeGreaterThan(0);
        expect(
          checks.filter((check) => check.status !== 'SUCCESS'),
          scenario,
        ).toEqual([]);
      }
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
      await served.close();
    }
  });
});
