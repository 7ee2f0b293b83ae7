import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RootDatabase, open } from 'lmdb';
import { afterEach } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { FactStore, type FactStoreOptions, type NewFact } from '../../src/memory/facts/factStore.js';
import { SimulatedClock } from '../../src/simulatedClock.js';

/** Where one test keeps L4: an LMDB environment of its own in a temp dir (as the org store's would be), and an index dir beside it. */
export interface FactPlace {
  readonly dir: string;
  readonly db: RootDatabase;
  readonly indexDir: string;
}

/** Opens the LMDB environment of a place's dir, as the runtime opens the org store's. */
function openEnv(dir: string): RootDatabase {
  return open({ path: join(dir, 'store'), noSubdir: false, maxDbs: 20 });
}

/**
 * Temp places and fact stores of one test file: every store opened through `openStore` is closed,
 * every environment closed and every dir removed after each test.
 */
export function factHarness(): {
  place: () => Promise<FactPlace>;
  openStore: (place: FactPlace | null, options?: Partial<FactStoreOptions>) => Promise<{ store: FactStore; logger: MemoryLogger; clock: SimulatedClock }>;
  reopenEnv: (place: FactPlace) => Promise<FactPlace>;
} {
  const dirs: string[] = [];
  const envs: RootDatabase[] = [];
  const stores: FactStore[] = [];
  afterEach(async () => {
    await Promise.allSettled(stores.splice(0).map((store) => store.close()));
    await Promise.allSettled(envs.splice(0).map((env) => env.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const placeIn = (dir: string): FactPlace => {
    const db = openEnv(dir);
    envs.push(db);
    return { dir, db, indexDir: join(dir, 'index') };
  };
  return {
    place: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-facts-'));
      dirs.push(dir);
      return placeIn(dir);
    },
    openStore: async (place, options = {}) => {
      const logger = new MemoryLogger();
      const clock = new SimulatedClock(1_000_000);
      const store = await FactStore.open({
        agentId: 'root',
        embedder: new HashedNgramEmbedder(),
        db: place?.db ?? null,
        indexDir: place?.indexDir ?? null,
        clock,
        logger,
        ...options,
      });
      stores.push(store);
      return { store, logger, clock };
    },
    reopenEnv: async (place) => {
      await place.db.close();
      return placeIn(place.dir);
    },
  };
}

/** A fact of `scope` (`session` ones in session `s1` unless told), importance 0.5 unless told. */
export function fact(text: string, init: Partial<NewFact> = {}): NewFact {
  const scope = init.scope ?? (init.sessionId === null ? 'agent' : 'session');
  return {
    text,
    scope,
    sessionId: scope === 'agent' ? null : (init.sessionId ?? 's1'),
    importance: init.importance ?? 0.5,
    ...(init.metadata === undefined ? {} : { metadata: init.metadata }),
  };
}
