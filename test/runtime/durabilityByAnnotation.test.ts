import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatRequest, type ScriptReply, ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskText } from '../../src/task/index.js';
import { processArgs } from '../support/cliProcess.js';
import { ledgerMarks, peekTool, tallyTool } from '../support/tallyTool.js';

// Issue 32 point 8: a step waits for the disk only when one of its tools changes the world.
// A tool that changes it never runs twice across a kill -9 (its result is durable before
// another tool runs); a read-only one's step waits for nothing, so it may run again.

const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs durabilityRuntime.ts until its model kills it mid-turn; returns the ids it printed. */
async function killedMidTurn(dir: string, ledger: string, mode: 'peek-read-only' | 'peek-changes'): Promise<{ clerk: string; task: string }> {
  const child = spawn(process.execPath, processArgs('test/runtime/durabilityRuntime.ts', [dir, ledger, mode]), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, killedBy) => resolve(killedBy)));
  if (signal !== 'SIGKILL') throw new Error(`the runtime was not killed mid-turn (${String(signal)}): ${stderr}`);
  return JSON.parse(stdout.split('\n')[0] ?? '') as { clerk: string; task: string };
}

/** The model after the restart: carries the turn on from whatever step it resumed at, to the answer. */
function carryOn(request: ChatRequest): ScriptReply {
  const last = request.messages.at(-1);
  if (last?.role === 'tool' && last.name === 'tally') return { toolCalls: [{ name: 'peek', arguments: { mark: 'a' } }] };
  if (last?.role === 'tool' && last.name === 'peek' && last.content.includes('"a"')) return { toolCalls: [{ name: 'peek', arguments: { mark: 'b' } }] };
  return { text: 'done' };
}

describe('durability that knows what a tool does: a turn killed (-9) after a step of read-only tools', () => {
  for (const mode of ['peek-read-only', 'peek-changes'] as const) {
    const readOnly = mode === 'peek-read-only';
    it(`never runs tally twice; peek, ${readOnly ? 'read-only, runs again since its step waited for nothing' : 'left to the defaults, waited for the disk and does not'}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-durability-'));
      dirs.push(dir);
      const ledger = join(dir, 'ledger.txt');
      const { task } = await killedMidTurn(join(dir, 'org'), ledger, mode);
      expect(ledgerMarks(ledger)).toEqual(['one']);
      expect(ledgerMarks(`${ledger}.peek`)).toEqual(['a', 'b']);

      const model = new ScriptedModel(Array.from({ length: 4 }, () => carryOn));
      const rt = await createRuntime({
        dataDir: join(dir, 'org'),
        model,
        tools: [tallyTool(ledger), peekTool(`${ledger}.peek`, { readOnly })],
        logger: new MemoryLogger(),
      });
      const answer = await rt.waitForAnswer(task, { timeoutMs: 20_000 });
      expect([answer.status, taskText(answer)]).toEqual(['completed', 'done']);
      await rt.shutdown();
      // tally's result was durable before peek ran: it is never run again.
      expect(ledgerMarks(ledger)).toEqual(['one']);
      const peeks = ledgerMarks(`${ledger}.peek`);
      if (readOnly) {
        // Nothing since tally's step was made durable: the turn resumed after tally, and both peeks ran again.
        expect(peeks).toEqual(['a', 'b', 'a', 'b']);
      } else {
        // peek a's result was durable before peek b ran; peek b's own commit may or may not have finished before the kill.
        expect(peeks.filter((mark) => mark === 'a')).toEqual(['a']);
      }
    }, 60_000);
  }
});
