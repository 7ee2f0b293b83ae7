import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger } from '../../src/testing.js';
import { projectRoot } from '../support/cliProcess.js';

// Until the docs' examples have their own test: docs/routing.md's example runs offline to the end.
describe('docs/examples/routing.ts', () => {
  it('runs offline and exits 0, printing a routed and a refused request', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/routing.ts'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^keyword ts-reviewer /m);
    expect(stdout).toMatch(/^none null no candidate is good enough/m);
    expect(stdout).toMatch(/^routing\.decided: keyword → ts-reviewer-\w+: ts-reviewer [\d.]+ ≥ 0\.3, spawned$/m);
  });
});

describe('routing options', () => {
  it('refuses a bad routing option when the runtime is created, naming it', async () => {
    await expect(createRuntime({ logger: new MemoryLogger(), routing: { threshold: 2 } })).rejects.toThrow(/routing\.threshold/);
    await expect(createRuntime({ logger: new MemoryLogger(), routing: { fastPath: { score: 0.5, margin: 2 } } })).rejects.toThrow(/routing\.fastPath\.margin/);
  });
});
