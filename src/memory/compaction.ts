import { z } from 'zod';
import { describeError } from '../errors.js';
import type { SummaryEntry, TaskEntry } from './entries.js';
import { SummarySourceSchema } from './entries.js';
import { extractiveSummary } from './extractiveSummary.js';
import { type CompactionContext, StepStopped, type Tally, emptyTally, madeProgress } from './compactionContext.js';
import type { CompactionHelpers, SummaryDraft } from './compactionHelpers.js';
import { type Move, planStep } from './promotion.js';
import { finishPromotion, promoteToL4 } from './promoteToL4.js';
import { clip } from './sentences.js';

const SummaryDraftSchema = z.object({ text: z.string(), source: SummarySourceSchema });

/** The summary a helper returned, made fit for L3: trimmed, at most `summaryMaxChars`; the extractive one when it gave nothing usable. */
function fitSummary(context: CompactionContext, returned: unknown, entries: readonly TaskEntry[]): SummaryDraft {
  const parsed = SummaryDraftSchema.safeParse(returned);
  const text = parsed.success ? parsed.data.text.trim() : '';
  if (parsed.success && text !== '') return { text: clip(text, context.limits.summaryMaxChars), source: parsed.data.source };
  context.logger.warn({ agentId: context.agentId, entries: entries.length }, 'summarize gave nothing usable; the extractive summary is used');
  const tasks = entries.map((entry) => entry.task);
  return { text: extractiveSummary(tasks, context.limits.summaryMaxChars), source: 'extractive' };
}

/**
 * The writes of a step's L1 and L2 moves, and its promotions to L4, issued as each move is made
 * and awaited together at the end of the step: each is still one transaction (a move is never
 * half on disk), and the store commits them in the order issued, but the step does not wait a
 * commit for each move.
 */
type Staged = Promise<void>[];

/** Stages work whose failure the step reports at its end; marked handled now, so a failure while later moves run is not an unhandled rejection. */
function stage(staged: Staged, work: Promise<void>): void {
  work.catch(() => undefined);
  staged.push(work);
}

/** An L1 entry moves to L2: the same record, its tier changed, in one put. */
function moveToL2(context: CompactionContext, entry: TaskEntry, tally: Tally, staged: Staged): void {
  const current = context.tiers.find('L1', entry.seq);
  if (current === undefined) return;
  const moved = { ...(current as TaskEntry), tier: 'L2' as const };
  context.tiers.replace('L1', moved);
  tally.l1ToL2++;
  stage(staged, context.write([moved], []));
}

/** L1 or L2 entries of one session become one L3 summary: the entries out and the summary in, in one transaction. */
async function summarizeToL3(
  context: CompactionContext,
  move: Extract<Move, { kind: 'toL3' }>,
  helpers: CompactionHelpers,
  tally: Tally,
  staged: Staged,
): Promise<void> {
  const returned: unknown = await helpers.summarize(move.entries);
  if (context.closing()) throw new StepStopped('the memory is closing');
  // Retrievals may have replaced an entry while the helper ran: take each as it is now.
  const entries = move.entries.flatMap((entry) => {
    const current = context.tiers.find(move.from, entry.seq);
    return current === undefined ? [] : [current as TaskEntry];
  });
  if (entries.length === 0) return;
  const draft = fitSummary(context, returned, entries);
  const retrieved = entries.flatMap((entry) => (entry.lastRetrievedAt === null ? [] : [entry.lastRetrievedAt]));
  const summary: SummaryEntry = {
    v: 1,
    tier: 'L3',
    seq: context.nextSeq(),
    sessionId: move.sessionId,
    summary: draft.text,
    taskIds: [...new Set(entries.map((entry) => entry.task.id))],
    source: draft.source,
    importance: Math.max(...entries.map((entry) => entry.importance)),
    retrievals: entries.reduce((sum, entry) => sum + entry.retrievals, 0),
    createdAt: Math.max(...entries.map((entry) => entry.createdAt)),
    lastRetrievedAt: retrieved.length === 0 ? null : Math.max(...retrieved),
  };
  for (const entry of entries) context.tiers.remove(move.from, entry.seq);
  context.tiers.add(summary);
  if (move.from === 'L1') tally.l1ToL3 += entries.length;
  else tally.l2ToL3 += entries.length;
  tally.summaries++;
  stage(
    staged,
    context.write(
      [summary],
      entries.map((entry) => entry.seq),
    ),
  );
}

async function runMove(context: CompactionContext, move: Move, now: number, helpers: CompactionHelpers, tally: Tally, staged: Staged): Promise<void> {
  if (context.closing()) throw new StepStopped('the memory is closing');
  switch (move.kind) {
    case 'toL2':
      moveToL2(context, move.entry, tally, staged);
      return;
    case 'toL3':
      return summarizeToL3(context, move, helpers, tally, staged);
    case 'toL4':
      // Each promotion is durable in its own order (its pending record before its facts); those of
      // different sessions touch different entries, so the step does not wait for one to start the next.
      stage(staged, promoteToL4(context, move, now, helpers, tally));
      return;
    default:
      return move satisfies never;
  }
}

/** What a step did, before the memory adds whether compaction is still due. */
export interface StepOutcome {
  readonly tally: Tally;
  readonly reason: string | null;
}

/**
 * One bounded compaction step: first the facts left waiting for L4 (by a failure or a crash),
 * then the moves `planStep` plans. A helper or the FactStore failing stops the step there,
 * with what moved so far kept and the failure as its reason; nothing is half-moved.
 */
export async function compactStep(context: CompactionContext, now: number, helpers: CompactionHelpers): Promise<StepOutcome> {
  const tally = emptyTally();
  const staged: Staged = [];
  try {
    for (const pending of [...context.tiers.pending]) await finishPromotion(context, pending, true, tally);
    const plan = planStep(context.tiers, now, context.limits);
    try {
      for (const move of plan.moves) await runMove(context, move, now, helpers, tally, staged);
    } finally {
      await Promise.all(staged);
    }
    return { tally, reason: plan.blocked ?? (madeProgress(tally) ? null : 'nothing is due') };
  } catch (error) {
    if (!(error instanceof StepStopped))
      context.logger.warn({ agentId: context.agentId, error: describeError(error) }, 'a memory compaction step stopped short');
    return { tally, reason: describeError(error) };
  }
}
