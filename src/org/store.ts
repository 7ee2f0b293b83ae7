import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import { type Clock, systemClock } from '../clock.js';
import { TroupeError, ValidationError, describeError } from '../errors.js';
import { checkDataFile } from './checkDataFile.js';
import { type StoreSettings, isLmdbFailure, readingThrough, setAsideOrRefuse, storeDamaged, storeFiles } from './damagedStore.js';
import { silentLogger } from '../logger.js';
import { type SubDbName, metaKey, nameRange, subDbNames } from './keys.js';
import { currentSchemaVersion, migrate, orgMigrations, readSchemaVersion } from './migrations.js';
import { givenWorkKey } from './givenWork.js';
import { readMessages } from './messageLog.js';
import { readWaiting } from './waitingTasks.js';
import { type InvalidRecord, listQuarantine, quarantine, scanDb, scanKeys } from './quarantine.js';
import { allValues, conversationSteps, latestTasks, ownedNames, sequencedTasks } from './reads.js';
import type { ActiveSkillsRecord, StoredAgentRecord, RoleRecord, SessionAgentRecord, TerminationRecord } from './schemas.js';
import type { Approval, Task } from '../task/index.js';
import type { OrgStore, OrgStoreOptions, SubDbs } from './types.js';
import { validators } from './validators.js';
import { checkedOnReadKeys } from './checkedOnRead.js';
import { InFlightView } from './inFlight.js';
import { artifactSubDbs } from './artifacts/lmdbArtifactTable.js';
import { createDurableWriter } from './writer.js';
import * as w from './writes.js';
import * as retain from './retention.js';
import type { StageContext, Staged } from './writes.js';

/**
 * Opens (or creates) the organisation store in `dir`: one LMDB environment with a named
 * sub-db per record kind. Opening first checks the data file page by page (`checkDataFile`),
 * so lmdb never maps a truncated or garbled file; a damaged store is moved aside and the
 * store starts empty, or refused with `store_damaged` (`onDamage`). Then it migrates an older
 * schema and validates every record: an invalid one is reported, moved to the quarantine and
 * the rest loads.
 *
 * @example
 * const store = await openOrgStore({ dir: '.troupe/org' });
 * await store.createRole({ id: 'role-1', name: 'poet', prompt: 'Write poems.', createdBy: 'user' });
 * await store.close();
 */
export async function openOrgStore(options: OrgStoreOptions): Promise<OrgStore> {
  // A library logs nothing unless given a logger.
  const settings = { ...options, logger: options.logger ?? silentLogger, clock: options.clock ?? systemClock };
  await makeStoreDir(options.dir);
  const damage = checkDataFile(join(options.dir, storeFiles[0]));
  if (damage !== undefined) await setAsideOrRefuse(settings, storeDamaged(options.dir, `${storeFiles[0]}: ${damage}`));
  try {
    return await loadStore(settings);
  } catch (error) {
    // lmdb failed on a file the check let through: damage all the same, never a native crash.
    if (!(error instanceof TroupeError) || error.code !== 'store_damaged') throw error;
    await setAsideOrRefuse(settings, error);
    return loadStore(settings);
  }
}

/** Creates the store's directory; a path that is a file (or under one) is bad input, named as such. */
async function makeStoreDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new ValidationError('dataDir', `${dir} is not a directory (a file is in the way); give the org store a directory`, { cause: error });
    }
    throw new TroupeError('internal', `cannot create the org store's directory ${dir}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Sub-dbs agents' memories keep in the same environment (`memory-entries`, `memory-facts`,
 * `memory-vectors`, `memory-meta`), with room for a few more: lmdb fixes the count at open.
 */
const memorySubDbs = 8;

/**
 * The address space mapped for the data file at open (virtual, not disk: the file grows as it
 * fills). Without it lmdb starts small and maps the file again, larger, each time it outgrows the
 * map, keeping the old maps; the pages touched through each stay resident, so a store of 100 MB
 * held 300 MB of resident memory after a 5-minute soak. lmdb still grows past this if it must.
 */
const mapSizeBytes = 16 * 1024 ** 3;

/** Opens the environment, migrates, validates every record and quarantines the invalid ones. */
async function loadStore(settings: StoreSettings): Promise<OrgStore> {
  const { dir, logger, clock } = settings;
  let root: RootDatabase;
  try {
    // noSubdir: lmdb would otherwise take a path with a dot in its last part (`.troupe`) for a file name.
    root = open({ path: dir, noSubdir: false, maxDbs: subDbNames.length + memorySubDbs + Object.keys(artifactSubDbs).length, mapSize: mapSizeBytes });
  } catch (error) {
    if (isLmdbFailure(error)) throw storeDamaged(dir, `lmdb cannot open it: ${describeError(error)}`, error);
    throw new TroupeError('internal', `cannot open the org store in ${dir}: ${describeError(error)}`, { cause: error });
  }
  try {
    const dbs = Object.fromEntries(subDbNames.map((name) => [name, root.openDB<unknown>({ name })])) as Record<SubDbName, Database<unknown>>;
    const target = settings.schemaVersion ?? currentSchemaVersion;
    // No meta: a new store gets the current schema; records without one are pre-versioned (0).
    const isEmpty = (): boolean => subDbNames.every((name) => name === 'quarantine' || dbs[name].getKeysCount({ limit: 1 }) === 0);
    const [stored, empty] = readingThrough(dir, () => [readSchemaVersion(dbs.meta), isEmpty()] as const);
    if (stored.kind === 'invalid') {
      // Garbage in meta: set it aside and trust the current schema; the scan below quarantines what does not fit.
      quarantine(root, dbs, [{ db: 'meta', key: metaKey, reason: stored.reason }], { clock, logger });
    }
    const from = stored.kind === 'version' ? stored.version : stored.kind === 'absent' && !empty ? 0 : target;
    if (stored.kind !== 'version' || from !== target) {
      migrate(root, dbs, { logger, migrations: { ...orgMigrations, ...settings.migrations }, from, target });
    }
    const invalid = readingThrough(dir, () => invalidRecords(dbs));
    quarantine(root, dbs, invalid, { clock, logger });
    return createOrgStore(root, dbs, settings);
  } catch (error) {
    await root.close();
    if (error instanceof TroupeError) throw error;
    if (isLmdbFailure(error)) throw storeDamaged(dir, describeError(error), error);
    throw new TroupeError('internal', `cannot load the org store in ${dir}: ${describeError(error)}`, { cause: error });
  }
}

/** Every record of the store that fails validation (the message log's and the waiting Tasks' by key only: their values are checked when read). */
function invalidRecords(dbs: SubDbs): InvalidRecord[] {
  const invalid: InvalidRecord[] = [];
  const keysOnly: Readonly<Partial<Record<SubDbName, (key: unknown) => string | undefined>>> = checkedOnReadKeys;
  for (const [name, validate] of Object.entries(validators) as [SubDbName, (key: unknown, value: unknown) => string | undefined][]) {
    const keyReason = keysOnly[name];
    invalid.push(...(keyReason === undefined ? scanDb(name, dbs[name], validate) : scanKeys(name, dbs[name], keyReason)));
  }
  return invalid;
}

function createOrgStore(root: RootDatabase, dbs: SubDbs, options: StoreSettings): OrgStore {
  const { clock } = options;
  const view = new InFlightView();
  const writer = createDurableWriter(root, view, options.logger, { fault: options.writeFault, committed: options.onCommit });
  // What reads of the sub-dbs checked on read need, to quarantine what they skip.
  const checked = { dbs, view, writer, logger: options.logger, clock };
  const context = { dbs, view };
  // Validation errors of the inputs reject before anything is queued: they are refusals, not failed writes.
  // Only `markTerminated` and `clearConversations` are `checked` (staged once earlier writes committed); see writes.ts.
  const write: QueueWrite = (label, checked, prepare, onCommitted) => {
    try {
      const stage = prepare();
      return writer.run(label, checked, () => stage(context), onCommitted);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  let closing: Promise<void> | undefined;

  return {
    environment: root,
    ...storeWrites(write, clock, retention(write, options)),
    ...storeReads(dbs, options.terminatedAgentsKept ?? 10_000),
    messages: (rootTaskId, page = {}) => readMessages(checked, rootTaskId, page),
    waiting: (agentId) => readWaiting(checked, agentId),
    flushed: () => writer.flushed(),
    // lmdb-js queued its commit with setImmediate as the writes were issued: this one runs after it.
    committing: () => new Promise<void>((resolve) => setImmediate(resolve)),
    close: () =>
      (closing ??= (async () => {
        await writer.close();
        // Closing the environment waits for outstanding commits and flushes.
        await root.close();
      })()),
  };
}

/** How many appends to the message log and the inbox go between two checks of their limit. */
export const pruneEvery = 256;
/** The most Tasks one check drops from each log: 16 times what comes in between two checks, so it catches up fast in small transactions. */
export const maxDropsPerPrune = 16 * pruneEvery;

/**
 * The message log's and the inbox's retention: `appended` is called after each append to
 * either, and every `pruneEvery` appends queues a `checked` write that drops what is past
 * `messageLogLimit` (see `pruneLogs`). A failed prune is logged; the next one catches up.
 */
function retention(write: QueueWrite, options: StoreSettings): { appended: () => void } {
  const limit = options.messageLogLimit ?? 1_000_000;
  let appends = 0;
  return {
    appended: () => {
      if (++appends % pruneEvery !== 0) return;
      void write('pruneLogs', true, () => (ctx) => retain.pruneLogs(ctx, limit, maxDropsPerPrune)).then(
        (dropped) => {
          if (dropped > 0) options.logger.debug({ dropped, messageLogLimit: limit }, 'message log and inbox: dropped the oldest Tasks past the limit');
        },
        (error: unknown) => options.logger.warn({ error: describeError(error) }, 'message log retention failed; the next check catches up'),
      );
    },
  };
}

/** Runs `prepare` now (checking the input) and queues the staged write it returns on the durable writer. */
type QueueWrite = <T>(label: string, checked: boolean, prepare: () => (ctx: StageContext) => Staged<T>, onCommitted?: () => void) => Promise<T>;

/** The OrgStore methods that only read, straight from the open sub-dbs (the message log reads apart). */
type StoreQueries =
  | 'conversation'
  | 'inbox'
  | 'latestInbox'
  | 'waitingCount'
  | 'workGiven'
  | 'sessionAgent'
  | 'activeSkills'
  | 'approvals'
  | 'role'
  | 'roles'
  | 'agent'
  | 'agents'
  | 'children'
  | 'terminations'
  | 'terminatedPastRetention'
  | 'quarantined';

/** A Task's record in its tree's log, checked now (a bad Task is refused before anything is queued), staged with its place. */
function loggedMessage(rootTaskId: string, task: Task): (ctx: StageContext) => Staged<number> {
  const record = w.messageRecord(task);
  const work = givenWorkKey(task);
  return (ctx) => w.appendLogged(ctx, rootTaskId, record, work);
}

/** A Task kept waiting for `agentId`, checked now; the seq is taken in queue order. */
function waitingTask(agentId: string, task: Task): (ctx: StageContext) => Staged<undefined> {
  w.waitingRecord(0, task);
  return (ctx) => w.putWaiting(ctx, agentId, task);
}

/** The store's writes: each validates its input, then stages its puts on the durable writer. */
function storeWrites(
  write: QueueWrite,
  clock: Clock,
  retained: { appended: () => void },
): Omit<OrgStore, StoreQueries | 'messages' | 'waiting' | 'flushed' | 'committing' | 'close' | 'environment'> {
  return {
    createRole: (role) =>
      write('createRole', false, () => {
        const record = w.roleRecord({ v: 1, ...role, createdAt: role.createdAt ?? clock.now() });
        return (ctx) => w.putRole(ctx, record);
      }),
    createAgent: (agent) =>
      write('createAgent', false, () => {
        const record = w.agentRecord({
          v: 1,
          ...agent,
          createdAt: agent.createdAt ?? clock.now(),
          terminatedAt: null,
          status: 'active',
        });
        return (ctx) => w.putAgent(ctx, record);
      }),
    updateAgent: (agentId, patch) => write('updateAgent', false, () => (ctx) => w.patchAgent(ctx, agentId, patch)),
    markTerminated: (termination, options = {}) =>
      write('markTerminated', true, () => {
        const record = w.terminationRecord({ v: 1, ...termination, at: termination.at ?? clock.now() });
        return (ctx) => w.terminate(ctx, record, options.removeConversations === true);
      }),
    appendMessage: (rootTaskId, task, onCommitted) => {
      const appended = write('appendMessage', false, () => loggedMessage(rootTaskId, task), onCommitted);
      retained.appended();
      return appended;
    },
    appendConversation: (agentId, steps) =>
      write('appendConversation', false, () => {
        const records = w.stepRecords(steps);
        return (ctx) => w.appendSeq(ctx, 'conversations', agentId, records);
      }),
    clearConversation: (agentId) => write('clearConversation', false, () => (ctx) => w.clearSeq(ctx, 'conversations', agentId)),
    clearConversations: (agentId) => write('clearConversations', true, () => (ctx) => w.clearAgentConversations(ctx, agentId)),
    appendInbox: (task) => {
      const appended = write('appendInbox', false, () => {
        const record = w.inboxRecord(task);
        return (ctx) => w.appendInboxTask(ctx, record);
      });
      retained.appended();
      return appended;
    },
    addWaiting: (agentId, task, onCommitted) => write('addWaiting', false, () => waitingTask(agentId, task), onCommitted),
    removeWaiting: (agentId, taskId) => write('removeWaiting', false, () => (ctx) => w.dropWaiting(ctx, agentId, taskId)),
    setActiveSkills: (agentId, sessionId, skills) =>
      write('setActiveSkills', false, () => {
        const record = skills.length === 0 ? null : w.activeSkillsRecord({ v: 1, agentId, sessionId, skills: [...skills], at: clock.now() });
        return (ctx) => w.putActiveSkills(ctx, agentId, sessionId, record);
      }),
    setApproval: (approval) => write('setApproval', false, () => w.approvalPut(approval)),
    removeApproval: (agentId, id) => write('removeApproval', false, () => (ctx) => w.putApproval(ctx, agentId, id, null)),
    setSessionAgent: (sessionId, agentId) =>
      write('setSessionAgent', false, () => {
        const record = w.sessionAgentRecord({ v: 1, sessionId, agentId, at: clock.now() });
        return (ctx) => w.putSessionAgent(ctx, record);
      }),
    forgetTerminated: (agents) =>
      write('forgetTerminated', true, () => {
        const checked = retain.retiredAgents(agents);
        return (ctx) => retain.forgetTerminated(ctx, checked);
      }),
  };
}

/** The store's plain reads. */
function storeReads(dbs: SubDbs, terminatedAgentsKept: number): Pick<OrgStore, StoreQueries> {
  return {
    conversation: (agentId) => conversationSteps(dbs.conversations, agentId),
    inbox: (page = {}) => sequencedTasks(dbs.inbox, page),
    latestInbox: (count) => latestTasks(dbs.inbox, count),
    waitingCount: (agentId) => dbs.mailboxes.getKeysCount(nameRange(agentId)),
    workGiven: (agentId, taskId) => dbs.givenWork.doesExist([agentId, taskId]),
    sessionAgent: (sessionId) => (dbs.sessionAgents.get(sessionId) as SessionAgentRecord | undefined)?.agentId,
    activeSkills: (agentId) =>
      [...dbs.activeSkills.getRange(nameRange(agentId))]
        .map(({ value }) => value as ActiveSkillsRecord)
        .sort((a, b) => a.at - b.at)
        .map(({ sessionId, skills }) => ({ sessionId, skills: [...skills] })),
    approvals: () => allValues<Approval>(dbs.approvals),
    role: (roleId) => dbs.roles.get(roleId) as RoleRecord | undefined,
    roles: () => allValues<RoleRecord>(dbs.roles),
    agent: (agentId) => dbs.agents.get(agentId) as StoredAgentRecord | undefined,
    agents: () => allValues<StoredAgentRecord>(dbs.agents),
    children: (agentId) => ownedNames(dbs.children, agentId),
    terminations: () => allValues<TerminationRecord>(dbs.terminations),
    terminatedPastRetention: (max) => retain.terminatedPastRetention(dbs, terminatedAgentsKept, max),
    quarantined: () => listQuarantine(dbs.quarantine),
  };
}
