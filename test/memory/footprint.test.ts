import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { envHarness } from '../support/memoryFixture.js';
import { processArgs } from '../support/cliProcess.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { tempEnv } = envHarness();

// Issue 14: heap per agent with an empty memory stays small at 10,000 agents (the whole agent,
// memory included, within 16 KB). An empty memory holds no arrays or maps: about 190 bytes an
// agent (its id and the list holding it included), where tiers made at open cost about 385.
describe('an empty agent memory', () => {
  it('costs at most 256 bytes of heap per agent, measured over 10,000 agents', { timeout: 120_000 }, async () => {
    const { dir, env } = await tempEnv();
    await env.close();
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', ...processArgs('test/memory/footprint.ts', [dir, '10000'])], { cwd: root });
    const { agents, bytesPerAgent } = JSON.parse(stdout) as { agents: number; bytesPerAgent: number };
    console.info(`empty agent memory: ${Math.round(bytesPerAgent)} bytes of heap per agent over ${agents} agents`);
    expect(agents).toBe(10_000);
    expect(bytesPerAgent).toBeLessThanOrEqual(256);
  });
});
