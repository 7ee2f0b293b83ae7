import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { runCli } from '../support/cliProcess.js';

// Times print in local time; pin the zone so the expected lines are stable.
const env = { TZ: 'UTC' };
const start = Date.UTC(2024, 4, 1, 12, 0, 0);
let base: string;
let dir: string;
let quarantineDir: string;
let rootTask: Task;

/** An organisation: boss-1 → (poet-2 → critic-4 terminated, editor-3), plus a second root scout-5. */
async function writeOrganisation(into: string): Promise<void> {
  const clock = new SimulatedClock(start);
  const store = await openOrgStore({ dir: into, clock, logger: new MemoryLogger() });
  for (const name of ['boss', 'poet', 'editor', 'critic']) {
    await store.createRole({ id: `role-${name}`, name, prompt: `You are the ${name}.`, createdBy: name === 'boss' ? 'user' : 'boss-1' });
    clock.advance(1_000);
  }
  await store.createAgent({ id: 'boss-1', roleId: 'role-boss', parentAgentId: null, createdAt: start + 10 });
  await store.createAgent({ id: 'poet-2', roleId: 'role-poet', parentAgentId: 'boss-1', createdAt: start + 20 });
  await store.createAgent({ id: 'editor-3', roleId: 'role-editor', parentAgentId: 'boss-1', createdAt: start + 30 });
  await store.createAgent({ id: 'critic-4', roleId: 'role-critic', parentAgentId: 'poet-2', createdAt: start + 40 });
  await store.createAgent({ id: 'scout-5', roleId: 'role-poet', parentAgentId: null, createdAt: start + 50 });
  await store.markTerminated({ agentId: 'critic-4', terminatedBy: 'poet-2', reason: 'off topic' });

  const deps = { ids: sequentialIds(), clock };
  rootTask = createTask({ from: 'user', to: 'boss-1', action: 'execute', parameters: { text: 'write a poem about rain' } }, deps);
  clock.advance(5);
  const sub = createTask(
    { from: 'boss-1', to: 'poet-2', action: 'execute', parameters: { text: 'draft a verse' }, parentId: rootTask.id, sessionId: rootTask.sessionId },
    deps,
  );
  clock.advance(120);
  const subDone = replyTo(sub, { status: 'completed', result: 'Rain on the roof' }, clock);
  clock.advance(1_000);
  const done = replyTo(rootTask, { status: 'completed', result: 'A poem: rain on the roof' }, clock);
  for (const task of [rootTask, sub, subDone, done]) await store.appendMessage(rootTask.id, task);
  // Another tree in the same log, which must not show up in the first one's messages.
  await store.appendMessage('other', createTask({ from: 'user', to: 'scout-5', action: 'execute', parameters: { text: 'look around' } }, deps));
  await store.close();
}

/** Writes bytes that never decode (0xc1 is not msgpack) into a sub-db, bypassing the store. */
async function writeGarbage(into: string, name: string, key: string): Promise<void> {
  const root = open({ path: into, noSubdir: false, maxDbs: 20 });
  const raw = root.openDB({ name, encoding: 'binary' });
  await raw.put(key, Buffer.from([0xc1, 0xff, 0x00]));
  await root.close();
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-views-'));
  dir = join(base, 'org');
  quarantineDir = join(base, 'damaged');
  await writeOrganisation(dir);
  await writeOrganisation(quarantineDir);
  await writeGarbage(quarantineDir, 'roles', 'role-garbage');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('troupe org', () => {
  it('prints the roles and the agent tree with statuses and who terminated whom', async () => {
    const result = await runCli(['org', '--data-dir', dir], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'roles (4)',
      '  boss    role-boss    created by user    2024-05-01 12:00:00',
      '  poet    role-poet    created by boss-1  2024-05-01 12:00:01',
      '  editor  role-editor  created by boss-1  2024-05-01 12:00:02',
      '  critic  role-critic  created by boss-1  2024-05-01 12:00:03',
      'agents (5)',
      '  boss-1          boss    active',
      '  ├─ poet-2       poet    active',
      '  │  └─ critic-4  critic  terminated  terminated by poet-2: off topic',
      '  └─ editor-3     editor  active',
      '  scout-5         poet    active',
      '',
    ]);
    expect(result.stdout).not.toContain('quarantined');
  });

  it('--json prints roles, agents, terminations and quarantined', async () => {
    const result = await runCli(['org', '--json'], { ...env, TROUPE_DATA_DIR: dir });
    expect(result.code, result.stderr).toBe(0);
    const org = JSON.parse(result.stdout) as Record<string, { id?: string; agentId?: string; parentAgentId?: string | null; reason?: string }[]>;
    expect(Object.keys(org)).toEqual(['roles', 'agents', 'terminations', 'quarantined']);
    expect(org['roles']?.map((role) => role.id)).toEqual(['role-boss', 'role-critic', 'role-editor', 'role-poet']);
    expect(org['agents']?.map((agent) => [agent.id, agent.parentAgentId])).toEqual([
      ['boss-1', null],
      ['critic-4', 'poet-2'],
      ['editor-3', 'boss-1'],
      ['poet-2', 'boss-1'],
      ['scout-5', null],
    ]);
    expect(org['terminations']).toEqual([{ v: 1, agentId: 'critic-4', terminatedBy: 'poet-2', reason: 'off topic', at: start + 4_000 }]);
    expect(org['quarantined']).toEqual([]);
  });

  it('reports quarantined records, in text and in --json', async () => {
    const text = await runCli(['org', '--data-dir', quarantineDir], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('roles (4)\n');
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('1 record quarantined; see --json');

    const json = await runCli(['org', '--data-dir', quarantineDir, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const { quarantined } = JSON.parse(json.stdout) as { quarantined: { db: string; key: unknown; reason: string; raw: string }[] };
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ db: 'roles', key: 'role-garbage', raw: Buffer.from([0xc1, 0xff, 0x00]).toString('base64') });
    expect(quarantined[0]?.reason).toMatch(/^undecodable: /);
  });

  it('exits 2 for a data dir where nothing has run, without creating it', async () => {
    const missing = join(base, 'nothing-here');
    const result = await runCli(['org', '--data-dir', missing], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`troupe: no organisation at ${missing} (nothing has run there yet)\n`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('troupe messages', () => {
  it("prints the task tree's messages in order with their times", async () => {
    const result = await runCli(['messages', rootTask.id, '--data-dir', dir], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      '12:00:04.000  user → boss-1          execute  write a poem about rain',
      '12:00:04.005  boss-1 → poet-2        execute  draft a verse',
      '12:00:04.125  poet-2 → boss-1        execute [completed]  Rain on the roof',
      '12:00:05.125  boss-1 → user          execute [completed]  A poem: rain on the roof',
      '',
    ]);
  });

  it('pages with --offset and --limit, and prints Tasks with --json as NDJSON, one Task a line, as the other commands do', async () => {
    const page = await runCli(['messages', rootTask.id, '--data-dir', dir, '--offset', '1', '--limit', '2'], env);
    expect(page.code, page.stderr).toBe(0);
    expect(
      page.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.slice(0, 12)),
    ).toEqual(['12:00:04.005', '12:00:04.125']);

    const past = await runCli(['messages', rootTask.id, '--data-dir', dir, '--offset', '10'], env);
    expect(past.code, past.stderr).toBe(0);
    expect(past.stdout).toBe('');

    const json = await runCli(['messages', rootTask.id, '--data-dir', dir, '--json', '--limit', '3'], env);
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stdout.split('\n');
    expect(lines.at(-1)).toBe('');
    const tasks = lines.slice(0, -1).map((line) => JSON.parse(line) as Task);
    expect(tasks.map((task) => [task.from, task.to, task.status])).toEqual([
      ['user', 'boss-1', 'submitted'],
      ['boss-1', 'poet-2', 'submitted'],
      ['poet-2', 'boss-1', 'completed'],
    ]);
    expect(tasks[0]).toEqual(rootTask);
  });

  // Several CLI processes one after another: on a loaded 2-core machine each can take 5–10 s to start.
  it('exits 2 for an unknown task, an invalid task id, a bad --limit or --offset, and a missing dir', { timeout: 120_000 }, async () => {
    const unknown = await runCli(['messages', 'nope', '--data-dir', dir], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`troupe: no messages for task nope in ${dir}\n`);

    const invalid = await runCli(['messages', 'not a task id', '--data-dir', dir], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^troupe: <taskId> must be 1–128 letters/);

    for (const bad of [
      ['--limit', '0'],
      ['--limit', 'ten'],
      ['--limit', '1.5'],
      ['--offset', '-1'],
    ]) {
      const result = await runCli(['messages', rootTask.id, '--data-dir', dir, ...bad], env);
      expect(result.code, bad.join(' ')).toBe(2);
      expect(result.stderr).toContain(`${bad[0] ?? ''} must be an integer`);
    }

    const missing = join(base, 'still-nothing');
    const gone = await runCli(['messages', rootTask.id, '--data-dir', missing], env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`troupe: no organisation at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });
});
