import type { Database, Key } from 'lmdb';
import { TroupeError } from '../errors.js';
import { type Approval, ApprovalSchema, type ChatMessage, type Task, isParsedTask, parseOrThrow } from '../task/index.js';
import { endKey, entries } from './reads.js';
import { type InFlightView, type ViewUpdate, viewKey } from './inFlight.js';
import { isNameKey, isSeq, isSeqKey, nameRange, seqRange, sessionConversationsRange } from './keys.js';
import {
  type StoredAgentRecord,
  AgentRecordSchema,
  ConversationRecordSchema,
  InboxRecordSchema,
  MailboxRecordSchema,
  MessageRecordSchema,
  type RoleRecord,
  RoleRecordSchema,
  type SessionAgentRecord,
  SessionAgentRecordSchema,
  ActiveSkillsRecordSchema,
  type ActiveSkillsRecord,
  type TerminationRecord,
  TerminationRecordSchema,
} from './schemas.js';
import type { AgentPatch, SubDbs } from './types.js';

// Each function here stages one write: it reads what it needs (synchronously, from disk and
// from the in-flight view of writes not yet committed) and returns the puts and removes to
// issue, without issuing any; a throw is a refusal (or a real failure) and leaves nothing
// behind. Inputs are validated by the caller before the write is queued.
//
// Everything a write reads that an earlier write may have changed comes through the view
// (sequence numbers, waiting keys, agent records, role and artifact existence), except the
// lists of an agent's waiting Tasks and conversations: `terminate` and `clearAgentConversations`
// are therefore `checked` in store.ts, staged only once every earlier write has committed, when
// disk alone is exact.

/** One put or remove of a staged write. */
export type Op =
  { readonly db: Database<unknown>; readonly key: Key; readonly value: unknown } | { readonly db: Database<unknown>; readonly key: Key; readonly remove: true };

/** A staged write: what to issue, what it leaves in the view, and what the caller gets. */
export interface Staged<T> {
  readonly ops: readonly Op[];
  readonly updates: readonly ViewUpdate[];
  readonly result: T;
}

/** What staging reads. */
export interface StageContext {
  readonly dbs: SubDbs;
  readonly view: InFlightView;
}

const put = (db: Database<unknown>, key: Key, value: unknown): Op => ({ db, key, value });
export const remove = (db: Database<unknown>, key: Key): Op => ({ db, key, remove: true });
export const staged = <T>(result: T, ops: readonly Op[], updates: readonly ViewUpdate[] = []): Staged<T> => ({ ops, updates, result });

/** An agent as every issued write left it. */
export const readAgent = ({ dbs, view }: StageContext, id: string): StoredAgentRecord | undefined =>
  view.read(viewKey.agent(id), () => dbs.agents.get(id) as StoredAgentRecord | undefined);

/** The agent record `record` puts, remembered in the view until it is committed. */
const agentUpdate = (record: StoredAgentRecord): ViewUpdate => ({ key: viewKey.agent(record.id), value: record });

function liveAgent(ctx: StageContext, id: string): StoredAgentRecord {
  const agent = readAgent(ctx, id);
  if (agent === undefined) throw new TroupeError('unknown_agent', `no agent "${id}"`, { context: { agentId: id } });
  if (agent.status === 'terminated') {
    throw new TroupeError('agent_terminated', `agent "${id}" is terminated`, { context: { agentId: id } });
  }
  return agent;
}

const roleExists = ({ dbs, view }: StageContext, roleId: string): boolean => view.read(viewKey.role(roleId), () => dbs.roles.doesExist(roleId));

function requireRole(ctx: StageContext, roleId: string): void {
  if (!roleExists(ctx, roleId)) throw new TroupeError('invalid_input', `no role "${roleId}"`, { context: { roleId } });
}

/** The next sequence number of `owner` in a `[owner, seq]` sub-db, as committed on disk. */
function nextSeq(db: Database<unknown>, owner: string): number {
  // Backwards from the top of the range; `end` is exclusive, so it is the bare `[owner]`, below `[owner, 0]`.
  for (const key of db.getKeys({ start: seqRange(owner).end, end: [owner], reverse: true, limit: 1 })) {
    if (isSeqKey(key) && key[0] === owner) return key[1] + 1;
  }
  return 0;
}

export function putRole(ctx: StageContext, role: RoleRecord): Staged<RoleRecord> {
  if (roleExists(ctx, role.id)) throw new TroupeError('invalid_input', `role "${role.id}" already exists`);
  return staged(role, [put(ctx.dbs.roles, role.id, role)], [{ key: viewKey.role(role.id), value: true }]);
}

export function putAgent(ctx: StageContext, agent: StoredAgentRecord): Staged<StoredAgentRecord> {
  const { dbs } = ctx;
  if (readAgent(ctx, agent.id) !== undefined) {
    throw new TroupeError('invalid_input', `agent "${agent.id}" already exists`, { context: { agentId: agent.id } });
  }
  requireRole(ctx, agent.roleId);
  if (agent.parentAgentId !== null) liveAgent(ctx, agent.parentAgentId);
  const link = agent.parentAgentId === null ? [] : [put(dbs.children, [agent.parentAgentId, agent.id], { v: 1 })];
  return staged(agent, [put(dbs.agents, agent.id, agent), ...link], [agentUpdate(agent)]);
}

export function patchAgent(ctx: StageContext, agentId: string, patch: AgentPatch): Staged<StoredAgentRecord> {
  const { dbs } = ctx;
  const before = liveAgent(ctx, agentId);
  const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  const updated = parseOrThrow(AgentRecordSchema, { ...before, ...changes }, 'agent');
  if (updated.roleId !== before.roleId) requireRole(ctx, updated.roleId);
  const ops: Op[] = [];
  if (updated.parentAgentId !== before.parentAgentId) {
    // The new parent must be live and must not be the agent itself or one of its descendants.
    if (updated.parentAgentId !== null) liveAgent(ctx, updated.parentAgentId);
    for (let up = updated.parentAgentId; up !== null; up = readAgent(ctx, up)?.parentAgentId ?? null) {
      if (up === agentId) throw new TroupeError('invalid_input', `agent "${agentId}" cannot descend from itself`);
    }
    if (before.parentAgentId !== null) ops.push(remove(dbs.children, [before.parentAgentId, agentId]));
    if (updated.parentAgentId !== null) ops.push(put(dbs.children, [updated.parentAgentId, agentId], { v: 1 }));
  }
  return staged(updated, [...ops, put(dbs.agents, agentId, updated)], [agentUpdate(updated)]);
}

/**
 * Staged only once every earlier write has committed: it lists the agent's waiting Tasks (and,
 * with `removeConversations`, its conversations: see `clearAgentConversations`) from disk.
 */
export function terminate(ctx: StageContext, termination: TerminationRecord, removeConversations: boolean): Staged<TerminationRecord> {
  const { dbs } = ctx;
  const agent = liveAgent(ctx, termination.agentId);
  const ended: StoredAgentRecord = { ...agent, status: 'terminated', terminatedAt: termination.at };
  // A terminated agent answers nothing more: what waited for it is cancelled, never handed back.
  const waiting = [...dbs.mailboxes.getKeys(nameRange(agent.id))].filter(isNameKey);
  // Nor does it have skills active any more.
  const skills = [...dbs.activeSkills.getKeys(nameRange(agent.id))];
  // Nor a call waiting for approval: its Task is cancelled.
  const approvals = [...dbs.approvals.getKeys(nameRange(agent.id))];
  const conversations = removeConversations ? clearAgentConversations(ctx, agent.id) : staged(0, []);
  // Pinned: one number for the whole store, read from disk once.
  const order = ctx.view.read(viewKey.terminationSeq, () => (endKey(dbs.terminationOrder, 'last') ?? -1) + 1);
  return staged(
    termination,
    [
      put(dbs.agents, agent.id, ended),
      put(dbs.terminations, termination.agentId, termination),
      put(dbs.terminationOrder, order, { v: 1, agentId: agent.id }),
      ...waiting.map((key) => remove(dbs.mailboxes, key)),
      ...skills.map((key) => remove(dbs.activeSkills, key)),
      ...approvals.map((key) => remove(dbs.approvals, key)),
      ...conversations.ops,
    ],
    [
      agentUpdate(ended),
      { key: viewKey.terminationSeq, value: order + 1, keep: 'pinned' },
      ...waiting.map(([agentId, taskId]) => ({ key: viewKey.waiting(agentId, taskId), value: false })),
      ...conversations.updates,
    ],
  );
}

/** Appends `values` to `owner`'s sequence; the result is its new length (one past the last seq). */
export function appendSeq({ dbs, view }: StageContext, name: 'messages' | 'conversations', owner: string, values: readonly unknown[]): Staged<number> {
  const db = dbs[name];
  const key = viewKey.seq(name, owner);
  const first = view.read(key, () => nextSeq(db, owner));
  return staged(
    first + values.length,
    values.map((value, i) => put(db, [owner, first + i], value)),
    [{ key, value: first + values.length, keep: 'recent' }],
  );
}

/** Removes every step of `owner`'s sequence: those on disk and those still in flight. */
export function clearSeq({ dbs, view }: StageContext, name: 'conversations', owner: string): Staged<undefined> {
  const db = dbs[name];
  const onDisk = nextSeq(db, owner);
  const next = view.read(viewKey.seq(name, owner), () => onDisk);
  const keys: Key[] = [...db.getKeys(seqRange(owner))];
  for (let seq = onDisk; seq < next; seq++) keys.push([owner, seq]);
  return staged(
    undefined,
    keys.map((key) => remove(db, key)),
    [{ key: viewKey.seq(name, owner), value: 0, keep: 'recent' }],
  );
}

/**
 * Removes every conversation `agentId` owns: each session's and one kept under its bare id (before
 * sessions had their own). Staged only once every earlier write has committed (it is `checked`),
 * so the keys it reads from disk are all there are. The result is how many conversations went.
 */
export function clearAgentConversations({ dbs }: StageContext, agentId: string): Staged<number> {
  const db = dbs.conversations;
  const keys = [...db.getKeys(seqRange(agentId)), ...db.getKeys(sessionConversationsRange(agentId))].filter(isSeqKey);
  const owners = new Set(keys.map(([owner]) => owner));
  return staged(
    owners.size,
    keys.map((key) => remove(db, key)),
    [...owners].map((owner) => ({ key: viewKey.seq('conversations', owner), value: 0, keep: 'recent' as const })),
  );
}

/**
 * Appends a Task to `owner`'s message log and notes its place in the log's order across sessions,
 * and, for work (`work`, its `givenWorkKey`), that its agent was given it; the result is its seq
 * in `owner`'s log.
 */
export function appendLogged(ctx: StageContext, owner: string, record: unknown, work: readonly [string, string] | undefined): Staged<number> {
  const { dbs, view } = ctx;
  const logged = appendSeq(ctx, 'messages', owner, [record]);
  const seq = logged.result - 1;
  // Pinned: one number for the whole store, read from disk once.
  const order = view.read(viewKey.orderSeq, () => (endKey(dbs.messageOrder, 'last') ?? -1) + 1);
  const given = work === undefined ? [] : [put(dbs.givenWork, [...work], { v: 1, order })];
  return staged(
    seq,
    [...logged.ops, put(dbs.messageOrder, order, { v: 1, owner, seq }), ...given],
    [...logged.updates, { key: viewKey.orderSeq, value: order + 1, keep: 'pinned' }],
  );
}

export function appendInboxTask({ dbs, view }: StageContext, record: unknown): Staged<number> {
  const seq = view.read(viewKey.inboxSeq, () => (endKey(dbs.inbox, 'last') ?? -1) + 1);
  // Pinned: one number for the whole store, read from disk once.
  return staged(seq, [put(dbs.inbox, seq, record)], [{ key: viewKey.inboxSeq, value: seq + 1, keep: 'pinned' }]);
}

/** One past the highest `seq` of any waiting Task (0 when none): where the next one goes. */
function nextWaitingSeq(dbs: SubDbs): number {
  let next = 0;
  // Waiting records are checked when read (checkedOnRead.ts): one no read has met yet may be invalid, and is passed over.
  for (const entry of entries(dbs.mailboxes, {})) {
    const seq = 'value' in entry ? (entry.value as { seq?: unknown } | null)?.seq : undefined;
    if (isSeq(seq)) next = Math.max(next, seq + 1);
  }
  return next;
}

/** Keeps `task` waiting for `agentId`, unless it already waits (then nothing is written). */
export function putWaiting({ dbs, view }: StageContext, agentId: string, task: Task): Staged<undefined> {
  const key = viewKey.waiting(agentId, task.id);
  if (view.read(key, () => dbs.mailboxes.doesExist([agentId, task.id]))) return staged(undefined, []);
  // Pinned: reading it from disk scans every waiting record.
  const seq = view.read(viewKey.waitingSeq, () => nextWaitingSeq(dbs));
  return staged(
    undefined,
    [put(dbs.mailboxes, [agentId, task.id], waitingRecord(seq, task))],
    [
      { key, value: true },
      { key: viewKey.waitingSeq, value: seq + 1, keep: 'pinned' },
    ],
  );
}

export function dropWaiting({ dbs }: StageContext, agentId: string, taskId: string): Staged<undefined> {
  return staged(undefined, [remove(dbs.mailboxes, [agentId, taskId])], [{ key: viewKey.waiting(agentId, taskId), value: false }]);
}

/** The skills an agent has active in a session: the newest list replaces the one before; an empty one removes it. */
export function putActiveSkills(ctx: StageContext, agentId: string, sessionId: string, record: ActiveSkillsRecord | null): Staged<undefined> {
  return staged(undefined, [record === null ? remove(ctx.dbs.activeSkills, [agentId, sessionId]) : put(ctx.dbs.activeSkills, [agentId, sessionId], record)]);
}

/** A tool call's approval as it now stands, or (null) its removal once its call is over. */
export function putApproval(ctx: StageContext, agentId: string, id: string, record: Approval | null): Staged<undefined> {
  return staged(undefined, [record === null ? remove(ctx.dbs.approvals, [agentId, id]) : put(ctx.dbs.approvals, [agentId, id], record)]);
}

/** The agent a session's user talks to: the newest record replaces the one before. */
export function putSessionAgent(ctx: StageContext, record: SessionAgentRecord): Staged<undefined> {
  return staged(undefined, [put(ctx.dbs.sessionAgents, record.sessionId, record)]);
}

// Validation of inputs into full records, done before a write is queued.

export const roleRecord = (input: unknown): RoleRecord => parseOrThrow(RoleRecordSchema, input, 'role');
export const sessionAgentRecord = (input: unknown): SessionAgentRecord => parseOrThrow(SessionAgentRecordSchema, input, 'sessionAgent');
/** Checks an approval now and stages its put for the queue. */
export function approvalPut(input: unknown): (ctx: StageContext) => Staged<undefined> {
  const record = parseOrThrow(ApprovalSchema, input, 'approval');
  return (ctx) => putApproval(ctx, record.agentId, record.id, record);
}
export const activeSkillsRecord = (input: unknown): ActiveSkillsRecord => parseOrThrow(ActiveSkillsRecordSchema, input, 'activeSkills');
export const agentRecord = (input: unknown): StoredAgentRecord => parseOrThrow(AgentRecordSchema, input, 'agent');
export const terminationRecord = (input: unknown): TerminationRecord => parseOrThrow(TerminationRecordSchema, input, 'termination');
// A Task made by parseTask/createTask/replyTo is already valid and deeply frozen (isParsedTask):
// its record needs no second zod pass, which was most of a message append's cost on the main thread.
export const messageRecord = (task: Task): unknown => (isParsedTask(task) ? { v: 1, task } : parseOrThrow(MessageRecordSchema, { v: 1, task }, 'message'));
export const inboxRecord = (task: Task): unknown => (isParsedTask(task) ? { v: 1, task } : parseOrThrow(InboxRecordSchema, { v: 1, task }, 'inbox'));
export const waitingRecord = (seq: number, task: Task): { v: 1; seq: number; task: Task } =>
  isParsedTask(task) && isSeq(seq) ? { v: 1, seq, task } : parseOrThrow(MailboxRecordSchema, { v: 1, seq, task }, 'waiting');
export const stepRecords = (steps: readonly ChatMessage[]): unknown[] =>
  steps.map((step, index) => parseOrThrow(ConversationRecordSchema, { ...step, v: 1 }, `steps[${index}]`));
