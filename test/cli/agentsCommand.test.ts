import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { OfflineModel } from '../../src/llm/index.js';
import { openOrgStore } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { runCli } from '../support/cliProcess.js';

// Issue 30, point 2: a child of root left live after a crash (its parent's turn ended without
// terminating it) can be terminated from the command line: `troupe agents terminate <id>`, as
// the user, under the rule DELETE /api/agents/:id follows.

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'troupe-agents-cli-'));
  // A runtime's own organisation (root and its role), then a worker of root with a helper of its own.
  const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger() });
  await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
  await rt.spawn({ role: 'worker', parent: 'root' });
  await rt.shutdown();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function organisation(): Promise<{ id: string; parent: string | null; status: string; by: string | undefined }[]> {
  const store = await openOrgStore({ dir });
  try {
    const by = new Map(store.terminations().map((termination) => [termination.agentId, termination.terminatedBy]));
    return store.agents().map((agent) => ({ id: agent.id, parent: agent.parentAgentId, status: agent.status, by: by.get(agent.id) }));
  } finally {
    await store.close();
  }
}

describe('troupe agents terminate', () => {
  it('terminates a child of root and its descendants as the user; refuses root, deeper agents and unknown ones; a second time is no error', async () => {
    const [worker] = (await organisation()).filter((agent) => agent.parent === 'root');
    const store = await openOrgStore({ dir });
    const helper = await store.createAgent({
      id: 'helper-1',
      roleId: (store.agent(worker?.id ?? '') ?? { roleId: '' }).roleId,
      parentAgentId: worker?.id ?? '',
    });
    await store.close();

    for (const [args, code, message] of [
      [['root'], 2, 'the user may not terminate root'],
      [[helper.id], 2, `the user may not terminate ${helper.id}: only ${worker?.id} may`],
      [['nobody'], 2, 'no agent "nobody"'],
    ] as const) {
      const refused = await runCli(['agents', 'terminate', ...args, '--data-dir', dir]);
      expect([refused.code, refused.stderr]).toEqual([code, expect.stringContaining(message)]);
    }
    expect((await organisation()).every((agent) => agent.status === 'active')).toBe(true);

    const done = await runCli(['agents', 'terminate', worker?.id ?? '', '--data-dir', dir, '--reason', 'left over after a crash']);
    expect([done.code, done.stdout]).toEqual([0, `terminated ${worker?.id}, ${helper.id}\n`]);
    expect(await organisation()).toEqual(
      expect.arrayContaining([
        { id: 'root', parent: null, status: 'active', by: undefined },
        { id: worker?.id, parent: 'root', status: 'terminated', by: 'user' },
        { id: helper.id, parent: worker?.id, status: 'terminated', by: worker?.id },
      ]),
    );
    const again = await runCli(['agents', 'terminate', worker?.id ?? '', '--data-dir', dir]);
    expect([again.code, again.stdout]).toEqual([0, `${worker?.id} was already terminated\n`]);

    // The organisation still starts, with root alone live.
    const rt = await createRuntime({ dataDir: dir, model: new OfflineModel(), logger: new MemoryLogger() });
    expect(
      rt
        .agents()
        .filter((agent) => agent.status === 'active')
        .map((agent) => agent.id),
    ).toEqual(['root']);
    await rt.shutdown();
  }, 60_000);
});
