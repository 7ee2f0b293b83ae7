import type { Database, RootDatabase } from 'lmdb';
import type { CompressionReport, Fact, FactHit, MemoryFacts, NewFact } from '../../src/memory/index.js';

// A stand-in for part "facts"' FactStore (src/memory/facts/), speaking its contract, for the
// L1–L3 tests until the real one lands: facts in an array, optionally kept in an LMDB sub-db so
// a killed process finds them again. No embedder, no merging: search ranks by shared words.

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

export class FactStoreDouble implements MemoryFacts {
  readonly facts: Fact[] = [];
  readonly searches: { text: string; k: number; sessionId: string | null }[] = [];
  /** Adds that succeed before every later one throws (a FactStore whose disk failed); null: never fails. */
  failAfter: number | null = null;
  closed = false;
  readonly #agentId: string;
  readonly #db: Database<Fact> | null;

  private constructor(agentId: string, db: Database<Fact> | null) {
    this.#agentId = agentId;
    this.#db = db;
  }

  /** A double for `agentId`, with the facts it kept in `root` before (none without a root). */
  static open(agentId: string, root: RootDatabase | null = null): FactStoreDouble {
    const db = root === null ? null : root.openDB<Fact>({ name: 'test-facts' });
    const double = new FactStoreDouble(agentId, db);
    if (db !== null) for (const { value } of db.getRange({ start: [agentId], end: [agentId, '~'] })) double.facts.push(value);
    return double;
  }

  get size(): number {
    return this.facts.length;
  }

  get maxQueryChars(): number {
    return 4000;
  }

  async add(fact: NewFact): Promise<{ fact: Fact; merged: boolean }> {
    if (this.failAfter !== null && this.failAfter-- <= 0) throw new Error('the fact store failed (test)');
    const stored: Fact = {
      ...fact,
      v: 1,
      id: `${this.#agentId}-f${String(this.facts.length).padStart(6, '0')}`,
      retrievals: 0,
      createdAt: 0,
      embedder: null,
      mergedFrom: [],
      fidelity: null,
    };
    // Numbered and listed before the write, as the real store does, so adds issued together get ids of their own.
    this.facts.push(stored);
    await this.#db?.put([this.#agentId, stored.id], stored);
    return { fact: stored, merged: false };
  }

  async addMany(facts: readonly { readonly fact: unknown; readonly merge: boolean }[]): Promise<{ fact: Fact; merged: boolean }[]> {
    const added: { fact: Fact; merged: boolean }[] = [];
    for (const { fact } of facts) added.push(await this.add(fact as NewFact));
    return added;
  }

  async remove(ids: readonly string[]): Promise<string[]> {
    const removed = this.facts.filter((fact) => ids.includes(fact.id));
    for (const fact of removed) {
      this.facts.splice(this.facts.indexOf(fact), 1);
      await this.#db?.remove([this.#agentId, fact.id]);
    }
    return removed.map((fact) => fact.id);
  }

  mergedInto(): Fact | undefined {
    return undefined;
  }

  async search(text: string, k: number, filter: { sessionId: string | null; minSimilarity?: number }): Promise<FactHit[]> {
    this.searches.push({ text, k, sessionId: filter.sessionId });
    const floor = filter.minSimilarity ?? -Infinity;
    return (await this.peek(text, k, filter)).filter((hit) => hit.similarity >= floor);
  }

  async peek(text: string, k: number, filter: { sessionId?: string | null } = {}): Promise<FactHit[]> {
    const query = words(text);
    return this.list(filter)
      .map((fact) => {
        const similarity = [...words(fact.text)].filter((word) => query.has(word)).length / Math.max(1, query.size);
        return { fact, similarity, channels: { bm25: null, vector: similarity, graph: null } };
      })
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, k);
  }

  /** Facts of that session and agent-scope facts (all facts without a filter). */
  list(filter?: { sessionId?: string | null }): Fact[] {
    const sessionId = filter?.sessionId;
    if (sessionId === undefined) return this.facts.slice();
    return this.facts.filter((fact) => fact.scope === 'agent' || fact.sessionId === sessionId);
  }

  /** The double never compresses: the real FactStore's compression is tested with it. */
  needsCompression(): boolean {
    return false;
  }

  async compress(): Promise<CompressionReport> {
    const size = this.facts.length;
    return { clusters: 0, merged: 0, mergedAway: 0, keptForFidelity: 0, dropped: 0, before: size, after: size };
  }

  async flush(): Promise<void> {
    await this.#db?.flushed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
