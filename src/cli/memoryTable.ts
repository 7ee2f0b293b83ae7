import type { MemoryItem, MemoryView } from '../runtime/index.js';
import { oneLine } from './formatTask.js';
import { clockTime } from './timeFormat.js';

const importance = (value: number): string => `imp ${value.toFixed(2)}`;

/** One line per entry: when, who, what and how important (a fact: its id, scope and similarity when searched). */
function entryLine(entry: MemoryItem): string {
  switch (entry.tier) {
    case 'l1':
    case 'l2': {
      const status = entry.status === 'submitted' ? '' : ` [${entry.status}]`;
      return `${clockTime(entry.createdAt)}  ${`${entry.from} → ${entry.to}`.padEnd(22)} ${entry.action}${status}  ${importance(entry.importance)}  ${oneLine(entry.text)}`;
    }
    case 'l3':
      return `${clockTime(entry.createdAt)}  session ${entry.sessionId}  ${importance(entry.importance)}  ${oneLine(entry.text)}  (${entry.taskIds.length} Tasks, ${entry.source})`;
    case 'l4': {
      const similarity = entry.similarity === null ? '' : `${entry.similarity.toFixed(3)}  `;
      const scope = entry.scope === 'agent' ? 'agent' : `session ${entry.sessionId ?? ''}`;
      return `${similarity}${entry.id.padEnd(6)} ${scope.padEnd(16)} ${importance(entry.importance)}  ${oneLine(entry.text)}`;
    }
    default:
      return entry satisfies never;
  }
}

/** A view's heading: the tier and how many it holds, or the search and how many it found. */
function heading(view: MemoryView): string {
  if (view.search !== null) return `L4 closest to "${oneLine(view.search.text, 60)}" (k ${view.search.k}): ${view.total} found`;
  return `${(view.tier ?? '').toUpperCase()} (${view.total})`;
}

/**
 * What `troupe memory` prints without `--json`: the agent and its counts, then each view's
 * entries one line each, and how many more a page left out.
 */
export function formatMemory(views: readonly MemoryView[], dir: string): string {
  const [first] = views;
  if (first === undefined) return '';
  const { counts } = first;
  const session = first.sessionId === null ? '' : ` · session ${first.sessionId}`;
  const lines = [`${first.agentId} in ${dir}${session} · L1 ${counts.l1} · L2 ${counts.l2} · L3 ${counts.l3} · L4 ${counts.l4}`];
  for (const view of views) {
    lines.push(heading(view), ...view.entries.map((entry) => `  ${entryLine(entry)}`));
    const after = view.total - view.offset - view.entries.length;
    if (view.search === null && after > 0) lines.push(`  … ${after} more (--offset ${view.offset + view.entries.length})`);
  }
  return `${lines.join('\n')}\n`;
}
