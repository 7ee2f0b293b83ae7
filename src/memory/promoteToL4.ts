import { z } from 'zod';
import type { PendingFacts, SummaryEntry } from './entries.js';
import { PromotionMarkerSchema } from './entries.js';
import { extractiveFacts } from './extractiveFacts.js';
import { effectiveImportance } from './importance.js';
import { type CompactionContext, StepStopped, type Tally } from './compactionContext.js';
import type { CompactionHelpers } from './compactionHelpers.js';
import { clip } from './sentences.js';

const FactTextsSchema = z.array(z.string());

/** The facts a helper returned, made fit for L4: trimmed, non-empty, at most `factMaxChars`, without repeats, at most `maxFactsPerBatch`. */
function fitFacts(context: CompactionContext, returned: unknown, summaries: readonly string[]): string[] {
  const { factMaxChars, maxFactsPerBatch } = context.limits;
  const parsed = FactTextsSchema.safeParse(returned);
  const texts = parsed.success ? parsed.data : [];
  const fitted = [...new Set(texts.map((text) => clip(text.trim(), factMaxChars)).filter((text) => text !== ''))];
  if (fitted.length > maxFactsPerBatch) {
    context.logger.warn(
      { agentId: context.agentId, returned: fitted.length, kept: maxFactsPerBatch },
      'kept the first maxFactsPerBatch facts of a batch of summaries',
    );
  }
  if (fitted.length > 0) return fitted.slice(0, maxFactsPerBatch);
  // Summaries leave L3 only as facts: with none from the helper, the extractive ones are kept.
  context.logger.warn({ agentId: context.agentId, summaries: summaries.length }, 'fact extraction gave nothing usable; the extractive facts are used');
  return extractiveFacts(summaries, { maxFacts: maxFactsPerBatch, maxChars: factMaxChars });
}

/**
 * Moves summaries of one session out of L3: facts are extracted, then the summaries leave L3
 * and a pending record holding those facts takes their place in one durable transaction, and
 * only then are the facts added to L4 (so a crash can never add them twice: see `finishPromotion`).
 */
export async function promoteToL4(
  context: CompactionContext,
  move: { readonly sessionId: string; readonly entries: readonly SummaryEntry[] },
  now: number,
  helpers: CompactionHelpers,
  tally: Tally,
): Promise<void> {
  const texts = move.entries.map((entry) => entry.summary);
  const returned: unknown = await helpers.extractFacts(texts);
  if (context.closing()) throw new StepStopped('the memory is closing');
  const summaries = move.entries.flatMap((entry) => {
    const current = context.tiers.find('L3', entry.seq);
    return current === undefined ? [] : [current as SummaryEntry];
  });
  if (summaries.length === 0) return;
  const pending: PendingFacts = {
    v: 1,
    tier: 'toL4',
    seq: context.nextSeq(),
    promotionId: context.ids.task(),
    sessionId: move.sessionId,
    importance: Math.max(...summaries.map((entry) => effectiveImportance(entry, now, context.limits))),
    facts: fitFacts(context, returned, texts),
    taskIds: [...new Set(summaries.flatMap((entry) => entry.taskIds))],
    createdAt: now,
  };
  for (const entry of summaries) context.tiers.remove('L3', entry.seq);
  context.tiers.add(pending);
  await context.write(
    [pending],
    summaries.map((entry) => entry.seq),
  );
  tally.l3ToL4 += summaries.length;
  await finishPromotion(context, pending, false, tally);
}

/** Parts of a promotion already in L4, read back from the markers in the facts' metadata. */
function partsInL4(context: CompactionContext, pending: PendingFacts): Set<number> {
  const parts = new Set<number>();
  for (const fact of context.facts.list({ sessionId: pending.sessionId })) {
    const marker = PromotionMarkerSchema.safeParse(fact.metadata);
    if (marker.success && marker.data.promotionId === pending.promotionId) parts.add(marker.data.part);
  }
  return parts;
}

/**
 * Adds a pending record's facts to L4 (scope 'session', its session), each marked with the
 * promotion's id and its part, then removes the record. `resumed`: the record was left by an
 * earlier step or process, so the parts whose marker is already in L4 are not added again.
 */
export async function finishPromotion(context: CompactionContext, pending: PendingFacts, resumed: boolean, tally: Tally): Promise<void> {
  const present = resumed ? partsInL4(context, pending) : new Set<number>();
  if (context.closing()) throw new StepStopped('the memory is closing');
  // Issued together, so the store commits them in one transaction rather than one commit each;
  // a part that failed is added again when the record is resumed (its marker is not in L4).
  const added = await Promise.allSettled(
    [...pending.facts.entries()]
      .filter(([part]) => !present.has(part))
      .map(([part, text]) =>
        context.facts.add({
          text,
          scope: 'session',
          sessionId: pending.sessionId,
          importance: pending.importance,
          metadata: { promotionId: pending.promotionId, part, taskIds: [...pending.taskIds] },
        }),
      ),
  );
  tally.facts += added.filter((outcome) => outcome.status === 'fulfilled').length;
  const failed = added.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  context.tiers.remove('toL4', pending.seq);
  tally.finished++;
  await context.write([], [pending.seq]);
}
