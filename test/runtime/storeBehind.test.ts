import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { SimulatedClock, sequentialIds } from '../../src/testing.js';
import { cleanupAfterEach, tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { processArgs } from '../support/cliProcess.js';

// An answer reaches the user only once the store has committed it, so while the store hangs the
// runtime's outputs hold every answer and what comes after it. They may hold maxHeldUntilDurable
// Tasks together: at it, the user's new work is refused at intake with `store_behind`, instead of
// being taken while nothing can leave. What is held leaves, in order, once the store commits.

const dataDir = tempDirsAfterEach('troupe-store-behind-');
const later = cleanupAfterEach();
const deps = { ids: sequentialIds(), clock: new SimulatedClock() };

/** Another process holding the store's write lock (real LMDB contention): every commit waits until `release`. */
async function holdStoreLock(dir: string): Promise<{ release: () => void }> {
  const child = spawn(process.execPath, processArgs('test/runtime/storeLockHolder.ts', [dir]), { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const release = (): void => {
    child.stdin.end('x');
  };
  later(async () => {
    release();
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.on('close', (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock`)));
  });
  return { release };
}

/** A final answer to the user of work given elsewhere (an agent on another node, its reply coming over the wire). */
function answerFromElsewhere(text: string): Task {
  const asked = createTask({ from: 'user', to: 'remote-1', action: 'execute', parameters: { text } }, deps);
  return replyTo(asked, { status: 'completed', result: { text: `re: ${text}` } }, deps.clock);
}

describe('a store that hangs while answers wait for it', () => {
  it('refuses new work with store_behind once maxHeldUntilDurable Tasks are held, lets none out early, and all of them in order once it commits', async () => {
    const dir = await dataDir();
    const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger(), maxHeldUntilDurable: 3 });
    later(async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    });
    const before = await rt.submit('write a haiku about rain');
    expect((await rt.waitForAnswer(before, { timeoutMs: 30_000 })).status).toBe('completed');
    const delivered: Task[] = [];
    rt.onOutput((task) => delivered.push(task));

    const lock = await holdStoreLock(dir);
    const answers = ['one', 'two', 'three'].map(answerFromElsewhere);
    for (const answer of answers) rt.bus.publish(answer);
    await expect(rt.submit('write a haiku about snow')).rejects.toMatchObject({
      code: 'store_behind',
      context: { held: 3, retryAfterSeconds: 1 },
    });
    expect(delivered).toEqual([]);

    lock.release();
    await rt.waitForAnswer(answers[2]?.id ?? '', { timeoutMs: 30_000 });
    expect(delivered.map((task) => task.id)).toEqual(answers.map((task) => task.id));
    expect(rt.messageLog(answers[0]?.sessionId ?? '')?.map((task) => task.id)).toEqual([answers[0]?.id]);
    const after = await rt.submit('write a haiku about wind');
    expect((await rt.waitForAnswer(after, { timeoutMs: 30_000 })).status).toBe('completed');
  });
});
