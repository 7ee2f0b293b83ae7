import type { Embedder } from '../embedding/embedder.js';
import { cosine, halfPrecision } from '../embedding/vectors.js';
import { effectiveImportance } from '../importance.js';
import { type GroupDrop, dropsByGroup } from './dropRule.js';
import type { FactLimits } from './factLimits.js';
import type { FactChange } from './factRecords.js';
import { type CompressionReport, type Fact, groupOf, labelOf } from './factSchema.js';
import type { FactSet } from './factSet.js';
import type { GroupedVectors } from './groupedVectors.js';
import { mergeText } from './mergeText.js';
import type { TurnBudget } from './turnBudget.js';
import { UnionFind } from './unionFind.js';
import type { VectorIndex } from './vectorIndex.js';

/** A cluster whose merge passed the fidelity check: its facts (most important first), the merged text, its vector and the lowest cosine to an original. */
export interface MergePlan {
  readonly members: readonly Fact[];
  readonly text: string;
  readonly vector: Float32Array;
  readonly fidelity: number;
}

/** Merged texts embedded in one call: a slice of work the event loop can wait for, and a request size any embedding API takes. */
const textsPerEmbedCall = 64;

/**
 * Clusters of `facts` (two or more each, all of one group): two facts are joined when one is among
 * the other's `clusterNeighbours` nearest in the index with cosine ≥ `clusterThreshold`, and
 * clusters are the connected sets of those links (union-find), so the work is one k-NN query per
 * fact, not a comparison of every pair.
 */
export async function findClusters(set: FactSet, index: VectorIndex, limits: FactLimits, budget: TurnBudget): Promise<Fact[][]> {
  const facts = set.all();
  const position = new Map(facts.map((fact, i) => [labelOf(fact.id), i]));
  const sets = new UnionFind(facts.length);
  for (const [i, fact] of facts.entries()) {
    if (budget.spent) await budget.pause();
    const vector = set.vectors.vectorOf(labelOf(fact.id));
    if (vector === undefined) continue;
    for (const neighbour of set.vectors.nearest(index, vector, limits.clusterNeighbours + 1, [groupOf(fact)])) {
      const other = position.get(neighbour.label);
      if (other !== undefined && other !== i && neighbour.similarity >= limits.clusterThreshold) sets.union(i, other);
    }
  }
  return sets.groups().map((members) => members.map((i) => facts[i] as Fact));
}

/**
 * Plans the merge of each cluster: its texts, most important first, merged (see mergeText), the
 * merged text embedded, and its fidelity, the lowest cosine between that vector and an original's.
 * Clusters whose fidelity is below `fidelityThreshold` are counted as `failed` and left alone.
 */
export async function planMerges(
  clusters: readonly Fact[][],
  deps: { embedder: Embedder; vectors: GroupedVectors; limits: FactLimits; now: number; budget: TurnBudget },
): Promise<{ passed: MergePlan[]; failed: number }> {
  const { embedder, vectors: stored, limits, now, budget } = deps;
  const ordered: Fact[][] = [];
  const texts: string[] = [];
  for (const cluster of clusters) {
    if (budget.spent) await budget.pause();
    const members = [...cluster].sort((a, b) => mostImportantFirst(a, b, now, limits));
    ordered.push(members);
    texts.push(
      mergeText(
        members.map((fact) => fact.text),
        limits.maxFactChars,
      ),
    );
  }
  // At the precision vectors are stored at (see halfPrecision), so the fidelity is the stored vectors'.
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += textsPerEmbedCall) {
    if (budget.spent) await budget.pause();
    vectors.push(...(await embedder.embed(texts.slice(start, start + textsPerEmbedCall))).map(halfPrecision));
  }
  const passed: MergePlan[] = [];
  for (const [i, members] of ordered.entries()) {
    if (budget.spent) await budget.pause();
    const vector = vectors[i];
    if (vector === undefined) continue;
    const fidelity = Math.min(...members.map((fact) => cosine(vector, stored.vectorOf(labelOf(fact.id)) ?? [])));
    if (fidelity >= limits.fidelityThreshold) passed.push({ members, text: texts[i] ?? '', vector, fidelity: Math.min(1, fidelity) });
  }
  return { passed, failed: ordered.length - passed.length };
}

/** The fact a passed merge becomes: the highest importance, every retrieval, the newest time, the origins (bounded), the members' metadata (the most important's wins a clash). */
function mergedFact(plan: MergePlan, id: string, embedder: string, limits: FactLimits): Fact {
  const [first] = plan.members;
  const metadata = Object.assign({}, ...[...plan.members].reverse().map((fact) => fact.metadata ?? {})) as NonNullable<Fact['metadata']>;
  const fitting = JSON.stringify(metadata).length <= limits.maxMetadataBytes ? metadata : first?.metadata;
  return {
    v: 1,
    id,
    text: plan.text,
    scope: first?.scope ?? 'agent',
    sessionId: first?.sessionId ?? null,
    importance: Math.max(...plan.members.map((fact) => fact.importance)),
    ...(fitting === undefined || Object.keys(fitting).length === 0 ? {} : { metadata: fitting }),
    retrievals: plan.members.reduce((sum, fact) => sum + fact.retrievals, 0),
    createdAt: Math.max(...plan.members.map((fact) => fact.createdAt)),
    embedder,
    mergedFrom: boundedOrigins(
      [...plan.members].sort((a, b) => labelOf(a.id) - labelOf(b.id)).flatMap((fact) => [...fact.mergedFrom, fact.id]),
      limits.maxMergedFrom,
    ),
    fidelity: plan.fidelity,
  };
}

/** The newest `max` origins. */
export function boundedOrigins(origins: readonly string[], max: number): string[] {
  return max === 0 ? [] : origins.slice(-max);
}

/**
 * Applies the passed merges whose facts are all still stored (a search may have changed them
 * meanwhile, never their text or vector), each whole within one slice of `budget`: each merged
 * fact replaces its originals in `set`, and the returned parts (one a merge) write exactly that.
 * `mergedAway`: the originals replaced.
 */
export async function applyMerges(
  set: FactSet,
  plans: readonly MergePlan[],
  deps: { index: VectorIndex; embedder: string; limits: FactLimits; budget: TurnBudget },
): Promise<{ parts: FactChange[]; merged: number; mergedAway: number }> {
  const { index, embedder, limits, budget } = deps;
  const parts: FactChange[] = [];
  let mergedAway = 0;
  for (const plan of plans) {
    if (budget.spent) await budget.pause();
    const members = plan.members.map((fact) => set.get(fact.id));
    if (!members.every((member): member is Fact => member !== undefined)) continue;
    const merged = mergedFact({ ...plan, members }, set.takeId(), embedder, limits);
    for (const member of members) set.remove(member, index);
    set.insert(merged, plan.vector, index);
    parts.push({ putFacts: [merged], putVectors: [{ id: merged.id, embedder, vector: plan.vector }], removeFacts: members.map((member) => member.id) });
    mergedAway += members.length;
  }
  if (parts.length > 0) set.bumpGeneration();
  return { parts, merged: parts.length, mergedAway };
}

/**
 * Facts leave `set` (and `index`, whose vectors then change generation) until `keep` are left,
 * the least important of each group over its share (see dropsByGroup), in slices of `budget`;
 * the parts remove them, one a fact. Stale facts make room: importance halves every
 * `halfLifeMs` and rises with each retrieval. `groups`: those that dropped any.
 */
export async function dropLeastImportant(
  set: FactSet,
  keep: number,
  deps: { index: VectorIndex | null; limits: FactLimits; now: number; budget: TurnBudget },
): Promise<{ parts: FactChange[]; dropped: number; groups: GroupDrop[] }> {
  const { index, limits, now, budget } = deps;
  // Each fact's importance worked out once, not twice for every comparison of a sort.
  const ranked = set.all().map((fact) => ({ fact, importance: effectiveImportance(fact, now, limits) }));
  if (budget.spent) await budget.pause();
  ranked.sort((a, b) => b.importance - a.importance || newestFirst(a.fact, b.fact));
  const groups = dropsByGroup(ranked, keep).filter((group) => group.dropped.length > 0);
  const dropped = groups.flatMap((group) => group.dropped);
  for (const fact of dropped) {
    if (budget.spent) await budget.pause();
    set.remove(fact, index);
  }
  if (index !== null && dropped.length > 0) set.bumpGeneration();
  return { parts: dropped.map((fact) => ({ removeFacts: [fact.id] })), dropped: dropped.length, groups };
}

/** Highest effective importance first; then as newestFirst, so the order is total and repeatable. */
function mostImportantFirst(a: Fact, b: Fact, now: number, limits: FactLimits): number {
  return effectiveImportance(b, now, limits) - effectiveImportance(a, now, limits) || newestFirst(a, b);
}

/** The newest first; then by id. */
function newestFirst(a: Fact, b: Fact): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What one `compress()` did, from the sizes before and after and the counts it made (zero for those it did not). */
export function compressionReport(
  before: number,
  after: number,
  counts: Partial<Pick<CompressionReport, 'clusters' | 'merged' | 'mergedAway' | 'keptForFidelity' | 'dropped'>> = {},
): CompressionReport {
  return { clusters: 0, merged: 0, mergedAway: 0, keptForFidelity: 0, dropped: 0, ...counts, before, after };
}
