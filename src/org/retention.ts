import type { Database, Key } from 'lmdb';
import { z } from 'zod';
import { TroupeError } from '../errors.js';
import { parseOrThrow } from '../task/index.js';
import { type ViewUpdate, viewKey } from './inFlight.js';
import { givenWorkKeyOfRecord } from './givenWork.js';
import { isSeq, nameRange, seqRange, sessionConversationsRange } from './keys.js';
import { endKey } from './reads.js';
import type { RetiredAgent, SubDbs } from './types.js';
import { type Op, type StageContext, type Staged, readAgent, remove, staged } from './writes.js';

// Retention: the staged writes and reads that keep the store bounded, dropping the oldest of
// what grows with use (the message log, the inbox, terminated agents).

/**
 * Drops the oldest Tasks of the message log past `limit` (each with its place in the order and,
 * for work, its given-work entry) and the oldest of the user's inbox past `limit`, at most
 * `maxDrops` of each, so one transaction stays small when the limit was lowered on a big store
 * (the next checks catch up). Staged only once every earlier write has committed (it is
 * `checked`): it reads both logs' ends from disk. The result is how many went.
 */
export function pruneLogs({ dbs }: StageContext, limit: number, maxDrops: number): Staged<number> {
  // Past the limit: the oldest keys of a log numbered without gaps (retention only ever drops its oldest).
  const excess = (db: Database<unknown>): number[] => {
    const [first, last] = [endKey(db, 'first'), endKey(db, 'last')];
    if (first === undefined || last === undefined || last - first + 1 <= limit) return [];
    return Array.from({ length: Math.min(maxDrops, last - first + 1 - limit) }, (_, i) => first + i);
  };
  const ops: Op[] = [];
  let dropped = 0;
  // The newest Task each session loses here: a session left with none keeps no handed-off agent either.
  const lastDropped = new Map<string, number>();
  for (const n of excess(dbs.messageOrder)) {
    dropped++;
    const at = dbs.messageOrder.get(n) as { owner?: unknown; seq?: unknown } | undefined;
    if (typeof at?.owner === 'string' && isSeq(at.seq)) {
      const key = [at.owner, at.seq];
      ops.push(...forgetGiven(dbs, key, n), remove(dbs.messages, key));
      lastDropped.set(at.owner, Math.max(at.seq, lastDropped.get(at.owner) ?? 0));
    }
    ops.push(remove(dbs.messageOrder, n));
  }
  for (const [session, seq] of lastDropped) {
    if (!dbs.sessionAgents.doesExist(session)) continue;
    let kept = false;
    for (const _ of dbs.messages.getKeys({ start: [session, seq + 1], end: seqRange(session).end, limit: 1 })) kept = true;
    if (!kept) ops.push(remove(dbs.sessionAgents, session));
  }
  for (const n of excess(dbs.inbox)) {
    ops.push(remove(dbs.inbox, n));
    dropped++;
  }
  return staged(dropped, ops);
}

/**
 * Removes the given-work entry of the Task logged `n`th under `key`, if it is work and the entry
 * is still that Task's (the same work logged again later keeps its own).
 */
function forgetGiven(dbs: SubDbs, key: Key, n: number): Op[] {
  let work: [string, string] | undefined;
  try {
    work = givenWorkKeyOfRecord(dbs.messages.get(key));
  } catch {
    // An undecodable record is quarantined when read; its entry outlives the limit.
    return [];
  }
  if (work === undefined) return [];
  const entry = dbs.givenWork.get(work) as { order?: unknown } | undefined;
  return entry === undefined || (isSeq(entry.order) && entry.order !== n) ? [] : [remove(dbs.givenWork, work)];
}

/**
 * The oldest terminated agents past the newest `kept`, at most `max` of them, oldest first, with
 * their place in the termination order. Counted, not read from the order's ends: a record
 * quarantined on open leaves a gap in its numbering.
 */
export function terminatedPastRetention(dbs: SubDbs, kept: number, max: number): RetiredAgent[] {
  const excess = dbs.terminationOrder.getKeysCount() - kept;
  if (excess <= 0) return [];
  const past: RetiredAgent[] = [];
  for (const { key, value } of dbs.terminationOrder.getRange({ limit: Math.min(max, excess) })) {
    const agentId = (value as { agentId?: unknown } | null)?.agentId;
    // A record that cannot name its agent is forgotten all the same (its agent's records then outlive the limit).
    if (typeof key === 'number') past.push({ order: key, agentId: typeof agentId === 'string' ? agentId : '' });
  }
  return past;
}

/**
 * Forgets terminated agents: each one's record, termination, place in the termination order,
 * links to and from its parent and children, conversations and waiting Tasks (none should be
 * left). A live agent is refused; one already forgotten costs only its order record. Staged only
 * once every earlier write has committed (it is `checked`): it lists keys from disk. The result
 * is how many agents went.
 */
export function forgetTerminated(ctx: StageContext, agents: readonly RetiredAgent[]): Staged<number> {
  const { dbs } = ctx;
  const ops: Op[] = [];
  const updates: ViewUpdate[] = [];
  let forgotten = 0;
  for (const { order, agentId } of agents) {
    const named = dbs.terminationOrder.get(order) as { agentId?: unknown } | undefined;
    if (named !== undefined && (named.agentId === agentId || agentId === '')) ops.push(remove(dbs.terminationOrder, order));
    const agent = agentId === '' ? undefined : readAgent(ctx, agentId);
    if (agent === undefined) continue;
    if (agent.status !== 'terminated') throw new TroupeError('invalid_input', `agent "${agentId}" is not terminated`, { context: { agentId } });
    forgotten++;
    const owned = (db: Database<unknown>, range: { start: Key; end: Key }): Op[] => [...db.getKeys(range)].map((key) => remove(db, key));
    ops.push(
      remove(dbs.agents, agentId),
      remove(dbs.terminations, agentId),
      ...(agent.parentAgentId === null ? [] : [remove(dbs.children, [agent.parentAgentId, agentId])]),
      ...owned(dbs.children, nameRange(agentId)),
      ...owned(dbs.conversations, seqRange(agentId)),
      ...owned(dbs.conversations, sessionConversationsRange(agentId)),
      ...owned(dbs.mailboxes, nameRange(agentId)),
      ...owned(dbs.activeSkills, nameRange(agentId)),
      ...owned(dbs.approvals, nameRange(agentId)),
    );
    updates.push({ key: viewKey.agent(agentId), value: undefined });
  }
  return staged(forgotten, ops, updates);
}

const RetiredAgentsSchema = z.array(z.object({ order: z.number().int().nonnegative(), agentId: z.string() }).strict());

export const retiredAgents = (input: readonly RetiredAgent[]): RetiredAgent[] => parseOrThrow(RetiredAgentsSchema, input, 'agents');
