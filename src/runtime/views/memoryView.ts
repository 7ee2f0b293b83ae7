import type { Fact, FactHit, MemoryReader, SummaryEntry, TaskEntry } from '../../memory/index.js';
import { type JsonValue, type Redactor, taskText } from '../../task/index.js';
import { type MemoryItem, type MemoryQuery, type MemoryView, memoryViewTextChars } from './memoryQuery.js';

/** A text as a view shows it: redacted first (so a cut never leaves part of a secret), then cut. */
function shown(text: string, redactor: Redactor): string {
  const safe = redactor.text(text);
  return safe.length <= memoryViewTextChars ? safe : `${safe.slice(0, memoryViewTextChars - 1)}…`;
}

function taskItem(entry: TaskEntry, redactor: Redactor): MemoryItem {
  // The Task redacted as a whole first: values under secret-looking keys go too, whatever its text is made of.
  const task = redactor.task(entry.task);
  return {
    tier: entry.tier === 'L1' ? 'l1' : 'l2',
    seq: entry.seq,
    id: task.id,
    from: task.from,
    to: task.to,
    action: redactor.text(task.action),
    status: task.status,
    sessionId: redactor.text(entry.sessionId),
    importance: entry.importance,
    retrievals: entry.retrievals,
    createdAt: entry.createdAt,
    text: shown(taskText(task), redactor),
  };
}

function summaryItem(entry: SummaryEntry, redactor: Redactor): MemoryItem {
  return {
    tier: 'l3',
    seq: entry.seq,
    sessionId: redactor.text(entry.sessionId),
    importance: entry.importance,
    retrievals: entry.retrievals,
    createdAt: entry.createdAt,
    text: shown(entry.summary, redactor),
    taskIds: entry.taskIds.map((id) => redactor.text(id)),
    source: entry.source,
  };
}

function factItem(fact: Fact, hit: Pick<FactHit, 'similarity' | 'channels' | 'node'> | null, redactor: Redactor): MemoryItem {
  return {
    tier: 'l4',
    id: fact.id,
    scope: fact.scope,
    sessionId: fact.sessionId === null ? null : redactor.text(fact.sessionId),
    importance: fact.importance,
    retrievals: fact.retrievals,
    createdAt: fact.createdAt,
    text: shown(fact.text, redactor),
    merged: fact.mergedFrom.length,
    fidelity: fact.fidelity,
    similarity: hit?.similarity ?? null,
    channels: hit?.channels ?? null,
    ...(hit?.node === undefined ? {} : { node: { kind: hit.node.kind } }),
    ...(fact.metadata === undefined ? {} : { metadata: redactor.value(fact.metadata) as Record<string, JsonValue> }),
  };
}

/**
 * The view `query` asks for of one agent's memory, from `reader` (its open memory, or what the
 * store keeps of it): counts of every tier, and a page of one tier or the facts closest to a
 * search. Plain data, every free text in it redacted with `redactor`; a search counts no
 * retrieval, so looking at a memory never changes what it keeps.
 */
export async function memoryView(reader: MemoryReader, query: MemoryQuery, source: MemoryView['source'], redactor: Redactor): Promise<MemoryView> {
  const filter = query.sessionId === null ? undefined : { sessionId: query.sessionId };
  const tiers = { l1: reader.l1(filter), l2: reader.l2(filter), l3: reader.l3(filter) };
  const facts = reader.facts(filter);
  const view = {
    agentId: reader.agentId,
    source,
    sessionId: query.sessionId === null ? null : redactor.text(query.sessionId),
    counts: { l1: tiers.l1.length, l2: tiers.l2.length, l3: tiers.l3.length, l4: facts.length },
    tier: query.tier,
    search: query.search === null ? null : { text: redactor.text(query.search.text), k: query.search.k },
  };
  if (query.search !== null) {
    const hits = await reader.peek(query.search.text, query.search.k, filter);
    return { ...view, total: hits.length, offset: 0, entries: hits.map((hit) => factItem(hit.fact, hit, redactor)) };
  }
  const page = <E>(list: readonly E[], item: (entry: E) => MemoryItem): MemoryView => ({
    ...view,
    total: list.length,
    offset: query.offset,
    entries: list.slice(query.offset, query.offset + query.limit).map(item),
  });
  switch (query.tier) {
    case null:
      return { ...view, total: 0, offset: 0, entries: [] };
    case 'l1':
    case 'l2':
      return page(tiers[query.tier], (entry) => taskItem(entry, redactor));
    case 'l3':
      return page(tiers.l3, (entry) => summaryItem(entry, redactor));
    case 'l4':
      return page(facts, (fact) => factItem(fact, null, redactor));
    default:
      return query.tier satisfies never;
  }
}
