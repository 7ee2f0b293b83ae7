import { canonicalJson } from './canonical.js';
import type { StoredRequest } from './recordingFormat.js';
import type { RequestKey } from './requestKey.js';

/** Longest a line of a diff is shown; the rest is cut. */
const shownChars = 300;
/** Most lines a diff shows. */
const shownLines = 40;

/** A request as the lines a diff compares: its model, its tools, then one line per message. */
function linesOf(request: { model: string; tools: RequestKey['tools']; messages: readonly string[] }): string[] {
  return [`model ${request.model}`, `tools ${request.tools.names.join(', ')} (definitions ${request.tools.digest.slice(0, 12)})`, ...request.messages];
}

function storedLines(stored: StoredRequest): string[] {
  return linesOf({ model: stored.model, tools: stored.tools, messages: stored.messages.map((message) => canonicalJson(message)) });
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The recorded request most like `live`: the one sharing the longest start with it, the earliest of equals. */
export function nearestRequest<T extends { readonly request: StoredRequest }>(live: RequestKey, recorded: readonly T[]): T | undefined {
  const wanted = linesOf(live);
  let best: T | undefined;
  let bestScore = -1;
  for (const candidate of recorded) {
    const score = commonPrefix(wanted, storedLines(candidate.request));
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

const cut = (line: string): string => (line.length > shownChars ? `${line.slice(0, shownChars)}… (${line.length} chars)` : line);

/**
 * A line diff of two lists (`-` only in `recorded`, `+` only in `live`, two spaces for both), by
 * their longest common subsequence; runs of equal lines are shortened to the one next to a change.
 */
export function lineDiff(recorded: readonly string[], live: readonly string[]): string {
  const n = recorded.length;
  const m = live.length;
  // lengths[i][j]: the longest common subsequence of recorded[i..] and live[j..].
  const lengths = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lengths[i] ?? [];
      row[j] = recorded[i] === live[j] ? (lengths[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lengths[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out: { mark: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && recorded[i] === live[j]) {
      out.push({ mark: ' ', line: recorded[i] ?? '' });
      i++;
      j++;
    } else if (i < n && (j >= m || (lengths[i + 1]?.[j] ?? 0) >= (lengths[i]?.[j + 1] ?? 0))) out.push({ mark: '-', line: recorded[i++] ?? '' });
    else out.push({ mark: '+', line: live[j++] ?? '' });
  }
  const changed = (k: number): boolean => out[k] !== undefined && out[k].mark !== ' ';
  const shown = out.filter((entry, k) => entry.mark !== ' ' || changed(k - 1) || changed(k + 1));
  const lines = shown.slice(0, shownLines).map((entry) => `${entry.mark} ${cut(entry.line)}`);
  if (shown.length > shownLines) lines.push(`… ${shown.length - shownLines} more lines`);
  return lines.join('\n');
}

/** The diff of a live request against a recorded one, as a divergence shows it. */
export function requestDiff(stored: StoredRequest, live: RequestKey): string {
  return lineDiff(storedLines(stored), linesOf(live));
}
