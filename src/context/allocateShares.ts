import { type SharedSource, sharedSources } from './contextBudget.js';
import type { Fitted } from './fitted.js';

/** A source fitted in the tokens it was finally allotted. */
export interface Allotted extends Fitted {
  readonly cut: boolean;
  readonly allotted: number;
}

/**
 * Shares out `available` tokens among the sources, then lets what some leave unused flow to the
 * others. `reserved` tokens are set aside first for the sources that have them (the newest
 * exchange, for `recent`), and the shares are parts of what is left. Each source first gets its
 * share (rounded down) plus its reserve and fits what it can. Then every source that could not fit
 * all it had, in the order of `sharedSources` (recent, important, summaries, retrieval, inherited),
 * is fitted again with its own use plus all that is still unused: the recent Tasks take what they
 * need first, and what they leave flows on. The allotments never add up to more than `available`.
 */
export function allocateShares(
  available: number,
  shares: Readonly<Record<SharedSource, number>>,
  reserved: Readonly<Partial<Record<SharedSource, number>>>,
  fit: (source: SharedSource, allotment: number) => Fitted,
): Record<SharedSource, Allotted> {
  const shared = available - sharedSources.reduce((sum, source) => sum + (reserved[source] ?? 0), 0);
  const result = {} as Record<SharedSource, Allotted>;
  let unused = available;
  for (const source of sharedSources) {
    const allotted = Math.floor(shares[source] * shared) + (reserved[source] ?? 0);
    const fitted = fit(source, allotted);
    result[source] = allottedAs(fitted, allotted);
    unused -= fitted.tokens;
  }
  for (const source of sharedSources) {
    const first = result[source];
    const complete = first.leftOut === 0 && !first.cut;
    if (complete || unused <= 0) continue;
    const allotted = first.tokens + unused;
    const fitted = fit(source, allotted);
    result[source] = allottedAs(fitted, allotted);
    unused -= fitted.tokens - first.tokens;
  }
  return result;
}

/**
 * One shape for every source's result, `cut` always set: the sources' own results differ in shape,
 * and spreading or reading them here made these sites megamorphic, the slowest part of a context
 * build (about 14 µs of 20 a call, measured in a loop of 20-step turns).
 */
function allottedAs(fitted: Fitted, allotted: number): Allotted {
  return { messages: fitted.messages, tokens: fitted.tokens, kept: fitted.kept, leftOut: fitted.leftOut, cut: fitted.cut === true, allotted };
}
