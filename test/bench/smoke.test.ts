import { spawn } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';
import { suites } from '../../scripts/bench/suites.js';
import { type CliResult, processArgs, projectRoot } from '../support/cliProcess.js';

/** `npm run bench` at a tiny size (BENCH_SIZE=smoke), from the JavaScript the global setup transpiled. */
function runSmokeBench(): Promise<CliResult> {
  const child = spawn(process.execPath, processArgs('scripts/bench/index.ts'), {
    cwd: projectRoot,
    env: { ...process.env, BENCH_SIZE: 'smoke', BENCH_ONLY: '', BENCH_VERBOSE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The rows of the table printed under `### <name>` (the lines after its header and separator), or null without that heading. */
function rowsOf(report: string, name: string): string[][] | null {
  const lines = report.split('\n');
  const heading = lines.indexOf(`### ${name}`);
  if (heading === -1) return null;
  const next = lines.findIndex((line, i) => i > heading && line.startsWith('### '));
  const table = lines.slice(heading + 1, next === -1 ? undefined : next).filter((line) => line.startsWith('|'));
  return table.slice(2).map((row) =>
    row
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );
}

describe('npm run bench', () => {
  // No figure is asserted: a smoke run only proves that every suite still runs to the end.
  it('runs every suite to the end at a tiny size, each printing its rows', { timeout: 300_000 }, async () => {
    const { code, stdout, stderr } = await runSmokeBench();
    expect(code, `the bench exited with ${String(code)}:\n${stderr.slice(-4000)}`).toBe(0);
    expect(suites.length).toBeGreaterThan(0);
    const present = { 'nats-server': inject('natsServerOnPath'), 'hnswlib-node': inject('hnswlibLoads'), chromium: inject('chromiumPresent') };
    for (const { name, needs } of suites) {
      if (needs !== undefined && !present[needs]) {
        expect(stdout, `the suite "${name}" needs ${needs}, which is missing here`).toContain(`### ${name}\n\nskipped: `);
        continue;
      }
      const rows = rowsOf(stdout, name);
      expect(rows, `no table for the suite "${name}" in:\n${stdout}`).not.toBeNull();
      expect(rows?.length, `the suite "${name}" printed no rows`).toBeGreaterThan(0);
      for (const row of rows ?? []) expect(row, `a row of "${name}" without its 5 cells`).toHaveLength(5);
    }
  });
});
