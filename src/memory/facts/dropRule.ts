import type { Logger } from '../../logger.js';
import { type Fact, groupOf } from './factSchema.js';

/** A fact with its effective importance when the compression runs. */
export interface RankedFact {
  readonly fact: Fact;
  readonly importance: number;
}

/** One group's part in a drop: a session's facts (`sessionId`), or the agent-scope ones (null). */
export interface GroupDrop {
  readonly sessionId: string | null;
  readonly kept: number;
  readonly dropped: readonly Fact[];
}

/**
 * Which facts a compression drops to keep `keep` of `ranked` (most important first), decided per
 * group (each session's facts, and the agent-scope facts, as `groupOf` groups them) so that no
 * group pays for another's growth:
 *
 * - every group may keep an equal share of `keep`; a group holding no more than its share keeps
 *   all of its facts, and the room it leaves is shared equally among the larger groups (the
 *   share is the level L at which Σ min(group size, L) reaches `keep`);
 * - a group above the share keeps its L most important facts and drops the rest; the few slots
 *   an equal split leaves over (fewer than those groups) go to the most important of their next
 *   facts.
 *
 * A session that piles up facts therefore drops its own, never a fact of a group within its
 * share. Groups are returned in the order of their first (most important) fact.
 */
export function dropsByGroup(ranked: readonly RankedFact[], keep: number): GroupDrop[] {
  const groups = new Map<string, { sessionId: string | null; facts: Fact[]; ranks: number[] }>();
  for (const [rank, { fact }] of ranked.entries()) {
    const key = groupOf(fact);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { sessionId: fact.sessionId, facts: [], ranks: [] }));
    group.facts.push(fact);
    group.ranks.push(rank);
  }
  const all = [...groups.values()];
  const kept = shares(
    all.map((group) => group.ranks),
    keep,
  );
  return all.map((group, i) => {
    const keeps = kept[i] ?? group.facts.length;
    return { sessionId: group.sessionId, kept: keeps, dropped: group.facts.slice(keeps) };
  });
}

/**
 * How many facts each group keeps, given each group's ranks (positions in the whole ranking,
 * ascending: lower is more important): see dropsByGroup.
 */
function shares(groups: readonly (readonly number[])[], keep: number): number[] {
  const kept = groups.map((ranks) => ranks.length);
  if (kept.reduce((sum, size) => sum + size, 0) <= keep) return kept;
  const smallestFirst = groups.map((ranks, index) => ({ ranks, index })).sort((a, b) => a.ranks.length - b.ranks.length);
  let room = keep;
  let left = groups.length;
  const above: { ranks: readonly number[]; index: number }[] = [];
  // A group within an equal share of the room left keeps everything, which can only raise the
  // share of the rest; the first group that is not within it, and every larger one, are above it.
  for (const group of smallestFirst) {
    if (above.length === 0 && group.ranks.length <= Math.floor(room / left)) {
      room -= group.ranks.length;
      left--;
    } else above.push(group);
  }
  const level = Math.floor(room / above.length);
  const extra = room - level * above.length;
  // Each group above holds more than `level` facts: its next one is the one at `level`.
  above.sort((a, b) => (a.ranks[level] ?? 0) - (b.ranks[level] ?? 0));
  for (const [i, { index }] of above.entries()) kept[index] = level + (i < extra ? 1 : 0);
  return kept;
}

/** Groups, and facts, a drop's log line names at most; it counts the rest. */
const loggedGroups = 20;
const loggedFacts = 20;
/** Characters of a dropped fact's text the line shows. */
const loggedChars = 120;

/**
 * One info line a drop, saying what went: how many facts each group (a session, or the
 * agent-scope facts: `sessionId` null) dropped and kept, and the first dropped facts themselves,
 * so no fact leaves unannounced.
 */
export function logDrop(logger: Logger, agentId: string, keep: number, groups: readonly GroupDrop[]): void {
  const dropped = groups.flatMap((group) => group.dropped);
  const sessions = [...groups].sort((a, b) => b.dropped.length - a.dropped.length);
  logger.info(
    {
      agentId,
      keep,
      dropped: dropped.length,
      groups: sessions.slice(0, loggedGroups).map((group) => ({ sessionId: group.sessionId, dropped: group.dropped.length, kept: group.kept })),
      facts: dropped
        .slice(0, loggedFacts)
        .map((fact) => ({ id: fact.id, sessionId: fact.sessionId, importance: fact.importance, text: fact.text.slice(0, loggedChars) })),
      ...(groups.length > loggedGroups ? { moreGroups: groups.length - loggedGroups } : {}),
      ...(dropped.length > loggedFacts ? { moreFacts: dropped.length - loggedFacts } : {}),
    },
    'L4 compression dropped facts',
  );
}
