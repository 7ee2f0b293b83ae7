import type { Clock } from '../../clock.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../embedding/embedder.js';
import { logDrop } from './dropRule.js';
import { type MergePlan, applyMerges, compressionReport as report, dropLeastImportant, findClusters, planMerges } from './compression.js';
import type { FactLimits } from './factLimits.js';
import type { FactChange } from './factRecords.js';
import type { CompressionReport } from './factSchema.js';
import type { FactSet } from './factSet.js';
import { TurnBudget } from './turnBudget.js';
import type { VectorIndex } from './vectorIndex.js';

/** What one compression works on: a FactStore's facts and the ways it writes and waits. */
export interface CompressionRunDeps {
  readonly agentId: string;
  readonly set: FactSet;
  readonly embedder: Embedder | null;
  readonly limits: FactLimits;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Resolves once no index file is being saved: a compression changes the index only then. */
  untilIndexSaved(): Promise<void>;
  /** Writes a compression's changes in bounded transactions. */
  writeParts(parts: readonly FactChange[]): Promise<void>;
}

/**
 * One compression, alone (adds wait for it): merges with an embedder, then, when it was due,
 * drops down to `keepTopN`, the least important of each session over its share (see
 * dropsByGroup), and logs what it dropped. Due: above `compressAbove`, without an
 * embedder, or making room for an add, which keeps one fewer when `keepTopN` is `compressAbove`.
 * Down to keepTopN, not just below compressAbove: else each later add would start another whole
 * compression that frees one slot.
 */
export async function runCompression(deps: CompressionRunDeps, makeRoom: boolean): Promise<CompressionReport> {
  const { set, embedder, limits } = deps;
  const before = set.size;
  const budget = new TurnBudget(() => deps.untilIndexSaved());
  const index = await set.index;
  const counts = embedder === null || index === null || before < 2 ? {} : await mergeClusters(deps, embedder, index, budget, makeRoom);
  const due = makeRoom || embedder === null || before > limits.compressAbove;
  const keep = makeRoom ? Math.min(limits.keepTopN, limits.compressAbove - 1) : limits.keepTopN;
  if (!due || set.size <= keep) return report(before, set.size, counts);
  await deps.untilIndexSaved();
  const { parts, dropped, groups } = await dropLeastImportant(set, keep, { index, limits, now: deps.clock.now(), budget });
  if (dropped > 0) {
    await deps.writeParts(parts);
    logDrop(deps.logger, deps.agentId, keep, groups);
  }
  return report(before, set.size, { ...counts, dropped });
}

/**
 * Merges the clusters whose merge passes the fidelity check (see planMerges). Making room for
 * adds, a failure to plan them (the embedder's) is logged and merges nothing: dropping the least
 * important still makes room.
 */
async function mergeClusters(
  deps: CompressionRunDeps,
  embedder: Embedder,
  index: VectorIndex,
  budget: TurnBudget,
  makeRoom: boolean,
): Promise<Partial<Pick<CompressionReport, 'clusters' | 'merged' | 'mergedAway' | 'keptForFidelity'>>> {
  const { set, limits } = deps;
  let plan: { clusters: number; passed: MergePlan[]; failed: number };
  try {
    const clusters = await findClusters(set, index, limits, budget);
    const { passed, failed } = await planMerges(clusters, { embedder, vectors: set.vectors, limits, now: deps.clock.now(), budget });
    plan = { clusters: clusters.length, passed, failed };
  } catch (error) {
    if (!makeRoom) throw error;
    deps.logger.warn({ agentId: deps.agentId, error: describeError(error) }, 'L4 compression could not plan its merges; it makes room by importance alone');
    return {};
  }
  await deps.untilIndexSaved();
  const { parts, merged, mergedAway } = await applyMerges(set, plan.passed, { index, embedder: embedder.id, limits, budget });
  if (merged > 0) await deps.writeParts(parts);
  return { clusters: plan.clusters, merged, mergedAway, keptForFidelity: plan.failed };
}
