import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RootDatabase, open } from 'lmdb';
import { afterEach } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { type OrgStore, type OrgStoreOptions, openOrgStore } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask } from '../../src/task/index.js';

/**
 * Temp dirs and stores of one test file: every store opened through `openTestStore` is
 * closed, and every dir removed, after each test.
 */
export function orgHarness(): {
  tempDir: () => Promise<string>;
  openTestStore: (dir: string, options?: Partial<OrgStoreOptions>) => Promise<{ store: OrgStore; logger: MemoryLogger }>;
} {
  const dirs: string[] = [];
  const stores: OrgStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    tempDir: async () => {
      // A dot in the name checks that the store treats it as a directory all the same.
      const dir = await mkdtemp(join(tmpdir(), 'troupe.org-'));
      dirs.push(dir);
      return dir;
    },
    openTestStore: async (dir, options = {}) => {
      const logger = new MemoryLogger();
      const store = await openOrgStore({ dir, logger, clock: new SimulatedClock(1_000), ...options });
      stores.push(store);
      return { store, logger };
    },
  };
}

let taskCount = 0;

/** A valid Task; `id` and `parentId` place it in a task tree. */
/** Opens the raw LMDB environment of a store dir, as the store does (a dir, even with a dot in its name). */
export function openRaw(dir: string): RootDatabase {
  return open({ path: dir, noSubdir: false, maxDbs: 20 });
}

export function makeTask(init: { id?: string; text?: string; parentId?: string | null; from?: string; to?: string } = {}): Task {
  const id = init.id ?? `t${++taskCount}`;
  return createTask(
    {
      id,
      from: init.from ?? 'user',
      to: init.to ?? 'poet-1',
      action: 'execute',
      parameters: { text: init.text ?? `task ${id}` },
      parentId: init.parentId ?? null,
    },
    { ids: { task: () => id, agent: (name) => name }, clock: new SimulatedClock(5_000) },
  );
}

/** Everything the store knows, as plain data, for comparing an organisation across reopens. */
export function snapshot(store: OrgStore, rootTaskIds: readonly string[] = []): unknown {
  return {
    roles: store.roles(),
    agents: store.agents(),
    children: Object.fromEntries(store.agents().map((agent) => [agent.id, store.children(agent.id)])),
    terminations: store.terminations(),
    messages: Object.fromEntries(rootTaskIds.map((id) => [id, store.messages(id)])),
    inbox: store.inbox(),
  };
}
