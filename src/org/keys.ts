import type { Key } from 'lmdb';

/**
 * Named sub-databases of the one LMDB environment, one per record kind. Keys use lmdb's
 * ordered-binary encoding, so `[owner, seq]` arrays sort by owner, then numerically by seq,
 * and a range read over one owner returns its records in sequence order.
 */
export const subDbNames = [
  'meta',
  'roles',
  'agents',
  'children',
  'terminations',
  'terminationOrder',
  'messages',
  'messageOrder',
  'givenWork',
  'conversations',
  'inbox',
  'mailboxes',
  'sessionAgents',
  'activeSkills',
  'approvals',
  'quarantine',
] as const;

export type SubDbName = (typeof subDbNames)[number];

/** The sub-databases holding organisation records (everything but meta and quarantine). */
export type RecordDbName = Exclude<SubDbName, 'meta' | 'quarantine'>;

/** The one key of the meta sub-db. */
export const metaKey = 'meta';

const maxSeq = Number.MAX_SAFE_INTEGER;

/** All `[owner, seq]` keys of one owner, in sequence order. */
export function seqRange(owner: string): { start: Key; end: Key } {
  return { start: [owner, 0], end: [owner, maxSeq] };
}

/**
 * All `[owner, name]` keys of one owner. Ids use letters, digits, `_` and `-`, all below `~`,
 * so `[owner, '~']` bounds them without reaching the next owner.
 */
export function nameRange(owner: string): { start: Key; end: Key } {
  return { start: [owner], end: [owner, '~'] };
}

/**
 * The owner of an agent's conversation in one session, in the conversations sub-db. Agent and
 * session ids are letters, digits, `_` and `-`, never `/`, so the key says whose it is unambiguously
 * and an agent's sessions sort together (`sessionConversationsRange`).
 */
export function sessionConversationKey(agentId: string, sessionId: string): string {
  return `${agentId}/${sessionId}`;
}

/** Every `[agentId/sessionId, seq]` key of one agent: its sessions' conversations (ids sort below `~`). */
export function sessionConversationsRange(agentId: string): { start: Key; end: Key } {
  return { start: [`${agentId}/`], end: [`${agentId}/~`] };
}

/** A sequence number: a non-negative safe integer. */
export function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** True for an `[owner, seq]` key. */
export function isSeqKey(key: unknown): key is [string, number] {
  return Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && isSeq(key[1]);
}

/** True for an `[owner, name]` key. */
export function isNameKey(key: unknown): key is [string, string] {
  return Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && typeof key[1] === 'string';
}

/** Renders a key for logs and quarantine reasons. */
export function showKey(key: unknown): string {
  try {
    // JSON.stringify gives undefined for undefined and symbols, whatever its declared type says.
    return key === undefined || typeof key === 'symbol' ? String(key) : JSON.stringify(key);
  } catch {
    return String(key);
  }
}
