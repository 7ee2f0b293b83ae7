import type { Database } from 'lmdb';
import { TroupeError } from '../errors.js';
import { type ChatMessage, type Task, parseOrThrow } from '../task/index.js';
import { isSeqKey, nameRange, seqRange } from './keys.js';
import {
  type StoredAgentRecord,
  AgentRecordSchema,
  type ArtifactRecord,
  ArtifactRecordSchema,
  ConversationRecordSchema,
  InboxRecordSchema,
  MailboxRecordSchema,
  MessageRecordSchema,
  type RoleRecord,
  RoleRecordSchema,
  type TerminationRecord,
  TerminationRecordSchema,
} from './schemas.js';
import type { AgentPatch, NewArtifact, SubDbs } from './types.js';
import { artifactHash } from './validators.js';

// Each function here runs inside a child transaction of the durable writer: it may read (and
// sees the writes before it), and a throw rolls back everything it put. Inputs are validated
// by the caller before the write is queued, so a throw here is a refusal or a real failure.

const readAgent = (dbs: SubDbs, id: string): StoredAgentRecord | undefined => dbs.agents.get(id) as StoredAgentRecord | undefined;

function liveAgent(dbs: SubDbs, id: string): StoredAgentRecord {
  const agent = readAgent(dbs, id);
  if (agent === undefined) throw new TroupeError('unknown_agent', `no agent "${id}"`, { context: { agentId: id } });
  if (agent.status === 'terminated') {
    throw new TroupeError('agent_terminated', `agent "${id}" is terminated`, { context: { agentId: id } });
  }
  return agent;
}

function requireRole(dbs: SubDbs, roleId: string): void {
  if (!dbs.roles.doesExist(roleId)) throw new TroupeError('invalid_input', `no role "${roleId}"`, { context: { roleId } });
}

/** The next sequence number of `owner` in a `[owner, seq]` sub-db. */
function nextSeq(db: Database<unknown>, owner: string): number {
  // Backwards from the top of the range; `end` is exclusive, so it is the bare `[owner]`, below `[owner, 0]`.
  for (const key of db.getKeys({ start: seqRange(owner).end, end: [owner], reverse: true, limit: 1 })) {
    if (isSeqKey(key) && key[0] === owner) return key[1] + 1;
  }
  return 0;
}

export function putRole(dbs: SubDbs, role: RoleRecord): RoleRecord {
  if (dbs.roles.doesExist(role.id)) throw new TroupeError('invalid_input', `role "${role.id}" already exists`);
  dbs.roles.putSync(role.id, role);
  return role;
}

export function putAgent(dbs: SubDbs, agent: StoredAgentRecord): StoredAgentRecord {
  if (dbs.agents.doesExist(agent.id)) {
    throw new TroupeError('invalid_input', `agent "${agent.id}" already exists`, { context: { agentId: agent.id } });
  }
  requireRole(dbs, agent.roleId);
  if (agent.parentAgentId !== null) liveAgent(dbs, agent.parentAgentId);
  dbs.agents.putSync(agent.id, agent);
  if (agent.parentAgentId !== null) dbs.children.putSync([agent.parentAgentId, agent.id], { v: 1 });
  return agent;
}

export function patchAgent(dbs: SubDbs, agentId: string, patch: AgentPatch): StoredAgentRecord {
  const before = liveAgent(dbs, agentId);
  const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  const updated = parseOrThrow(AgentRecordSchema, { ...before, ...changes }, 'agent');
  if (updated.roleId !== before.roleId) requireRole(dbs, updated.roleId);
  if (updated.parentAgentId !== before.parentAgentId) {
    // The new parent must be live and must not be the agent itself or one of its descendants.
    if (updated.parentAgentId !== null) liveAgent(dbs, updated.parentAgentId);
    for (let up = updated.parentAgentId; up !== null; up = readAgent(dbs, up)?.parentAgentId ?? null) {
      if (up === agentId) throw new TroupeError('invalid_input', `agent "${agentId}" cannot descend from itself`);
    }
    if (before.parentAgentId !== null) dbs.children.removeSync([before.parentAgentId, agentId]);
    if (updated.parentAgentId !== null) dbs.children.putSync([updated.parentAgentId, agentId], { v: 1 });
  }
  dbs.agents.putSync(agentId, updated);
  return updated;
}

export function terminate(dbs: SubDbs, termination: TerminationRecord): TerminationRecord {
  const agent = liveAgent(dbs, termination.agentId);
  dbs.agents.putSync(agent.id, { ...agent, status: 'terminated', terminatedAt: termination.at });
  dbs.terminations.putSync(termination.agentId, termination);
  // A terminated agent answers nothing more: what waited for it is cancelled, never handed back.
  for (const key of [...dbs.mailboxes.getKeys(nameRange(agent.id))]) dbs.mailboxes.removeSync(key);
  return termination;
}

export function appendSeq(db: Database<unknown>, owner: string, values: readonly unknown[]): number {
  let seq = nextSeq(db, owner);
  for (const value of values) db.putSync([owner, seq++], value);
  return seq;
}

export function appendInboxTask(dbs: SubDbs, record: unknown): number {
  let seq = 0;
  for (const key of dbs.inbox.getKeys({ reverse: true, limit: 1 })) if (typeof key === 'number') seq = key + 1;
  dbs.inbox.putSync(seq, record);
  return seq;
}

/** One past the highest `seq` of any waiting Task (0 when none): where the next one goes. */
export function nextWaitingSeq(dbs: SubDbs): number {
  let next = 0;
  for (const { value } of dbs.mailboxes.getRange()) next = Math.max(next, (value as { seq: number }).seq + 1);
  return next;
}

/** Keeps `task` waiting for `agentId` at `seq`, unless it already waits; says whether it was added. */
export function putWaiting(dbs: SubDbs, agentId: string, seq: number, task: Task): boolean {
  if (dbs.mailboxes.doesExist([agentId, task.id])) return false;
  dbs.mailboxes.putSync([agentId, task.id], waitingRecord(seq, task));
  return true;
}

export function clearSeq(db: Database<unknown>, owner: string): void {
  for (const key of [...db.getKeys(seqRange(owner))]) db.removeSync(key);
}

/** Content-addressed: storing the same content again keeps the first record. */
export function putArtifactRecord(dbs: SubDbs, hash: string, record: ArtifactRecord): string {
  if (!dbs.artifacts.doesExist(hash)) dbs.artifacts.putSync(hash, record);
  return hash;
}

// Validation of inputs into full records, done before a write is queued.

export const roleRecord = (input: unknown): RoleRecord => parseOrThrow(RoleRecordSchema, input, 'role');
export const agentRecord = (input: unknown): StoredAgentRecord => parseOrThrow(AgentRecordSchema, input, 'agent');
export const terminationRecord = (input: unknown): TerminationRecord =>
  parseOrThrow(TerminationRecordSchema, input, 'termination');
export const messageRecord = (task: Task): unknown => parseOrThrow(MessageRecordSchema, { v: 1, task }, 'message');
export const inboxRecord = (task: Task): unknown => parseOrThrow(InboxRecordSchema, { v: 1, task }, 'inbox');
export const waitingRecord = (seq: number, task: Task): { v: 1; seq: number; task: Task } =>
  parseOrThrow(MailboxRecordSchema, { v: 1, seq, task }, 'waiting');
export const stepRecords = (steps: readonly ChatMessage[]): unknown[] =>
  steps.map((step, index) => parseOrThrow(ConversationRecordSchema, { ...step, v: 1 }, `steps[${index}]`));

export function artifactRecord(input: NewArtifact): { hash: string; record: ArtifactRecord } {
  const record = parseOrThrow(ArtifactRecordSchema, { v: 1, ...input }, 'artifact');
  return { hash: artifactHash(record.content), record };
}
