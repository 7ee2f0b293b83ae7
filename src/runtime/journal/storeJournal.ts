import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { TroupeError, describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { OrgStore } from '../../org/index.js';
import { lmdbArtifactTable } from '../../org/artifacts/lmdbArtifactTable.js';
import { Actions, type ChatMessage, type Task } from '../../task/index.js';
import type { ConversationSink, Journal, StoredOrganisation } from './journal.js';
import { WriteBatch, type WriteBatchLimits } from './writeBatch.js';

/** A stored record without its schema version. */
const strip = <R extends { v: number }>({ v: _v, ...rest }: R): Omit<R, 'v'> => rest;

/** What a restart starts from: null for a store that never held a society (no root). */
function storedOrganisation(store: OrgStore, inboxLimit: number): StoredOrganisation | null {
  if (store.agent('root') === undefined) return null;
  return {
    roles: store.roles().map(strip),
    agents: store.agents().map(strip),
    terminations: store.terminations().map(strip),
    inbox: store.latestInbox(inboxLimit),
  };
}

/**
 * A Journal on the LMDB organisation store. The store writes in call order, off the main thread,
 * so what is fired and forgotten here still lands in order; `durable()` waits for all of it.
 *
 * @internal
 */
export function storeJournal(store: OrgStore, logger: Logger, limits: WriteBatchLimits, clock: Clock, memoryIndexDir: string): Journal {
  // The user's own Tasks, logged durably before they are sent: the bus log skips them.
  const loggedFirst = new WeakSet<Task>();
  // Fire-and-forget writes: a failure is logged (the store already retried it once) and costs
  // only what the write would have kept for a restart.
  const batch = new WriteBatch(limits, clock);
  const queued = (write: () => Promise<unknown>, what: string, fields: Record<string, unknown>, records = 1): void => {
    batch.add(() => void write().catch((error: unknown) => logger.error({ ...fields, error: describeError(error) }, `${what} write failed`)), records);
  };
  // Writes someone waits for go after everything queued before them, in the same transaction.
  const awaited = <T>(write: () => Promise<T>): Promise<T> => {
    batch.issue();
    return write();
  };
  const conversations = heldConversations(store, batch, queued);
  // The bus's transport stops reading the store before it closes.
  let stopConsulting = (): void => undefined;

  return {
    persistent: true,
    memoryStore: { db: store.environment, indexDir: memoryIndexDir },
    artifactTable: () => lmdbArtifactTable(store.environment),
    connect(bus: EventBus) {
      // Every Task goes to its tree's log, except the streamed thinking fragments (the answer they
      // add up to is logged) and the user's own messages (logged before they were sent). What is
      // addressed to the user goes to the inbox in the same write, before the user is handed it.
      bus.subscribe(
        { pattern: '*' },
        (task) => {
          if (task.action === Actions.thinking || loggedFirst.has(task)) return;
          queued(() => store.appendMessage(task.sessionId, task), 'message log', { taskId: task.id });
          if (task.to === 'user') queued(() => store.appendInbox(task), 'inbox', { taskId: task.id });
        },
        'message-log',
      );
      // Work the log holds was given before, though the transport's own memory of it went with the
      // last process: a replay of it from the wire is dropped, not run again.
      stopConsulting = bus.transport.consultGivenWork?.({ given: (agentId, taskId) => store.workGiven(agentId, taskId) }) ?? stopConsulting;
    },
    role: async (role) => {
      await awaited(() => store.createRole({ ...role }));
    },
    agent: async (record, start) => {
      const { terminatedAt: _terminatedAt, status: _status, ...agent } = record;
      await awaited(() => store.createAgent(agent));
      return start();
    },
    terminated: async (termination) => {
      // A clear of the agent's conversations still held goes in the termination's transaction.
      const removeConversations = conversations.takeClear(termination.agentId);
      await awaited(() => store.markTerminated({ ...termination }, { removeConversations }));
    },
    ...userInputs(store, awaited, loggedFirst),
    waiting: (agentId, task) => {
      if (!loggedFirst.has(task)) queued(() => store.addWaiting(agentId, task), 'waiting Task', { agentId, taskId: task.id });
    },
    answered: (agentId, taskId) => queued(() => store.removeWaiting(agentId, taskId), 'answered Task', { agentId, taskId }),
    activeSkills: (agentId, sessionId, skills) => queued(() => store.setActiveSkills(agentId, sessionId, skills), 'active skills', { agentId, sessionId }),
    storedActiveSkills: (agentId) => store.activeSkills(agentId),
    approval: (approval) => awaited(() => store.setApproval(approval)),
    approvalOver: (agentId, id) => queued(() => store.removeApproval(agentId, id), 'approval over', { agentId, approvalId: id }),
    storedApprovals: () => store.approvals(),
    sessionAgent: (sessionId, agentId) => queued(() => store.setSessionAgent(sessionId, agentId), 'session agent', { sessionId, agentId }),
    storedSessionAgent: (sessionId) => store.sessionAgent(sessionId),
    conversation: (owner) => conversations.sink(owner),
    clearConversations: (agentId) => conversations.clearAgent(agentId),
    forgetRetired: (max, erase) => forgetRetired(store, max, erase, awaited),
    durable: () => awaited(() => store.flushed()),
    committing: () => store.committing(),
    stored: (inboxLimit) => storedOrganisation(store, inboxLimit),
    storedWaiting: (agentId) => store.waiting(agentId),
    storedWaitingCount: (agentId) => store.waitingCount(agentId),
    storedConversation: (owner) => store.conversation(owner),
    agentRecord: (agentId) => {
      const record = store.agent(agentId);
      return record === undefined ? undefined : strip(record);
    },
    agentRecords: () => store.agents().map(strip),
    messageLog: (rootTaskId, page) => store.messages(rootTaskId, page),
    close: () => {
      stopConsulting();
      return awaited(() => store.close());
    },
  };
}

/** The journal's `userInput` and `accepted`: a user's Task is held here from its hand-over until it is on disk. */
function userInputs(store: OrgStore, awaited: <T>(write: () => Promise<T>) => Promise<T>, loggedFirst: WeakSet<Task>): Pick<Journal, 'userInput' | 'accepted'> {
  const inFlight = new Map<string, Promise<void>>();
  return {
    userInput: (task, send) => {
      const written = awaited(() => userInputWritten(store, task, send, () => loggedFirst.add(task)));
      const onDisk = written.then(
        () => undefined,
        () => undefined,
      );
      inFlight.set(task.id, onDisk);
      void onDisk.then(() => inFlight.delete(task.id));
      return written;
    },
    accepted: (taskId) => inFlight.get(taskId) ?? Promise.resolve(),
  };
}

/**
 * The user's Task written to its tree's log and kept waiting for its agent (one transaction), and
 * `send` run once both are committed, while their fsync goes on (see Journal.userInput); `logged`
 * first, so the bus log does not write it again. Resolves with what `send` returned once both are
 * durable; rejects when either write is refused or fails, and then nothing was sent.
 */
async function userInputWritten<T>(store: OrgStore, task: Task, send: () => T, logged: () => void): Promise<T> {
  let sent: { value: T } | { error: unknown } | undefined;
  let committed = 0;
  const onCommitted = (): void => {
    if (++committed < 2) return;
    logged();
    try {
      sent = { value: send() };
    } catch (error) {
      sent = { error };
    }
  };
  await Promise.all([store.appendMessage(task.sessionId, task, onCommitted), store.addWaiting(task.to, task, onCommitted)]);
  if (sent === undefined) throw new TroupeError('internal', `the user's Task ${task.id} was written but never handed over`);
  if ('error' in sent) throw sent.error;
  return sent.value;
}

/** The store journal's `forgetRetired`: erase first, then forget, so a crash never leaves a memory nobody owns. */
async function forgetRetired(
  store: OrgStore,
  max: number,
  erase: (agentIds: readonly string[]) => Promise<void>,
  awaited: <T>(write: () => Promise<T>) => Promise<T>,
): Promise<readonly string[]> {
  const past = store.terminatedPastRetention(max);
  if (past.length === 0) return [];
  const agentIds = past.map(({ agentId }) => agentId).filter((id) => id !== '');
  await erase(agentIds);
  await awaited(() => store.forgetTerminated(past));
  return agentIds;
}

type Queue = (write: () => Promise<unknown>, what: string, fields: Record<string, unknown>, records?: number) => void;

/**
 * Conversations' writes through the batch. Appends to a conversation held since its last write
 * was issued join that write: a ReAct step's reply and its tool results (the tool-call log entry
 * held between them) are staged once, not once each. A clear or a rewrite ends the run, so
 * nothing appended after it joins a write issued before it. An agent's clear still held when its
 * termination is recorded is taken by the termination's write (`takeClear`): both are writes the
 * store stages only once earlier ones have committed, so apart they would cost a terminate two
 * commits in a row.
 */
function heldConversations(
  store: OrgStore,
  batch: WriteBatch,
  queued: Queue,
): { sink(owner: string): ConversationSink; clearAgent(agentId: string): void; takeClear(agentId: string): boolean } {
  const held = new Map<string, ChatMessage[]>();
  // Agents whose clear is held, not yet issued.
  const clearing = new Set<string>();
  const append = (owner: string, messages: readonly ChatMessage[]): void => {
    const run = held.get(owner);
    if (run !== undefined) {
      run.push(...messages);
      batch.joined(messages.length);
      return;
    }
    const started = [...messages];
    held.set(owner, started);
    const write = (): Promise<unknown> => {
      if (held.get(owner) === started) held.delete(owner);
      return store.appendConversation(owner, started);
    };
    queued(write, 'conversation', { owner }, started.length);
  };
  const clear = (owner: string): void => {
    held.delete(owner);
    queued(() => store.clearConversation(owner), 'conversation', { owner });
  };
  return {
    sink: (owner) => ({
      appended: (messages) => append(owner, messages),
      replaced: (messages) => {
        clear(owner);
        append(owner, messages);
      },
      cleared: () => clear(owner),
    }),
    clearAgent: (agentId) => {
      // Every run ends, not only the agent's: a conversation key does not say cheaply whose it is.
      held.clear();
      clearing.add(agentId);
      queued(() => (clearing.delete(agentId) ? store.clearConversations(agentId) : Promise.resolve()), 'conversations', { agentId });
    },
    // Whether a clear of `agentId` was held: it is then the caller's to write, and the held one writes nothing.
    takeClear: (agentId) => clearing.delete(agentId),
  };
}
