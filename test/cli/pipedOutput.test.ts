import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { sequentialIds } from '../../src/ids.js';
import { type Task, TaskSchema, createTask, replyTo } from '../../src/task/index.js';
import { answers, quietRuntime } from '../support/runtimeFixture.js';
import { runCli } from '../support/cliProcess.js';
import { runCliReadSlowly } from '../support/slowReader.js';

// Every command's output read through a pipe by a slow reader, as `troupe … --json | jq` reads
// it: all of it must arrive, however far past the pipe's 64 KiB buffer it goes.

const start = Date.UTC(2024, 4, 1, 12, 0, 0);
/** Characters in each long text: big enough that a few of them overflow a pipe many times. */
const long = 60_000;
const longText = (label: string): string => `${label} `.repeat(long / (label.length + 1)).trim();
let base: string;
/** An organisation written by its store: roles with long prompts and one task tree of long messages. */
let orgDir: string;
/** A data dir a runtime wrote: root remembers long requirements and answers. */
let memoryDir: string;
let bigTask: Task;
const roleCount = 40;
const messageCount = 50;

async function writeBigOrganisation(into: string): Promise<void> {
  const clock = new SimulatedClock(start);
  const store = await openOrgStore({ dir: into, clock, logger: new MemoryLogger() });
  for (let i = 0; i < roleCount; i++) {
    await store.createRole({ id: `role-${i}`, name: `role ${i}`, prompt: longText(`prompt-of-role-${i}`), createdBy: 'user' });
  }
  const deps = { ids: sequentialIds(), clock };
  bigTask = createTask({ from: 'user', to: 'root', action: 'execute', parameters: { text: longText('the-requirement') } }, deps);
  await store.appendMessage(bigTask.id, bigTask);
  for (let i = 1; i < messageCount; i++) {
    clock.advance(10);
    await store.appendMessage(bigTask.id, replyTo(bigTask, { status: 'working', result: longText(`progress-${i}`) }, clock));
  }
  await store.close();
}

async function writeLongMemories(into: string): Promise<void> {
  const turns = 60;
  const { rt } = await quietRuntime({ dataDir: into, steps: answers(turns, longText('an-answer').slice(0, 3_000)) });
  try {
    for (let i = 0; i < turns; i++) {
      const taskId = await rt.submit(longText(`requirement-${i}`).slice(0, 3_000));
      expect((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status).toBe('completed');
    }
  } finally {
    await rt.shutdown();
  }
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-piped-'));
  orgDir = join(base, 'org');
  memoryDir = join(base, 'memory');
  await writeBigOrganisation(orgDir);
  await writeLongMemories(memoryDir);
}, 120_000);

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// Each case starts `troupe` from source in its own process and reads it slowly: seconds each.
const slow = { timeout: 120_000 };

describe('output into a slow pipe', () => {
  it('troupe messages --json: multi-megabyte JSON lines arrive whole', slow, async () => {
    const result = await runCliReadSlowly(['messages', bigTask.id, '--json', '--limit', String(messageCount), '--data-dir', orgDir], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(3_000_000);
    const tasks = TaskSchema.array().parse(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    );
    expect(tasks).toHaveLength(messageCount);
    // Compared as a flag: a diff of two 60,000-character texts helps nobody.
    expect(tasks.at(-1)?.result === longText(`progress-${messageCount - 1}`)).toBe(true);
  });

  it('troupe org --json: a multi-megabyte organisation arrives whole', slow, async () => {
    const result = await runCliReadSlowly(['org', '--json', '--data-dir', orgDir], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(2_000_000);
    const org = JSON.parse(result.stdout) as { roles: { id: string; prompt: string }[] };
    expect(org.roles).toHaveLength(roleCount);
    expect(org.roles.find((role) => role.id === `role-${roleCount - 1}`)?.prompt === longText(`prompt-of-role-${roleCount - 1}`)).toBe(true);
  });

  it('troupe memory --json: every entry of every tier arrives, one JSON line each', slow, async () => {
    const args = ['memory', 'root', '--json', '--data-dir', memoryDir];
    const result = await runCliReadSlowly(args, {});
    expect(result.code, result.stderr).toBe(0);
    // More than the pipe and one read of the reader hold together.
    expect(result.stdout.length).toBeGreaterThan(128 * 1024);
    const tiers = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { tier: string }).tier);
    expect(new Set(tiers).has('l1')).toBe(true);
    // The same view read at once, through a socket pair whose buffers hold all of it.
    const whole = await runCli(args);
    expect(result.stdout === whole.stdout).toBe(true);
  });

  it("troupe run --json: every Task arrives, the answer among them, and the exit code is the answer's", slow, async () => {
    // Long enough that the Tasks that carry it overflow the pipe several times.
    const requirement = 'please-write-a-haiku-about-rain '.repeat(3_200).slice(0, 99_000).trim();
    const result = await runCliReadSlowly(['run', requirement, '--json', '--no-status', '--memory'], {});
    expect(result.stdout.length).toBeGreaterThan(3 * requirement.length);
    const tasks = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => TaskSchema.parse(JSON.parse(line)));
    expect(tasks[0]?.parameters['text'] === requirement).toBe(true);
    const answers = tasks.filter((task) => task.id === tasks[0]?.id && task.to === 'user' && (task.status === 'completed' || task.status === 'failed'));
    expect(answers).toHaveLength(1);
    const answer = answers[0];
    // The run ends with 0 for a completed answer and 1 for a failed one: either way, the answer is here.
    expect(result.code, result.stderr).toBe(answer?.status === 'completed' ? 0 : 1);
  });
});
