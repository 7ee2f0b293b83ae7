import type { RootDatabase } from 'lmdb';
import { hashedNgramScheme } from '../hashedNgramVector.js';
import type { Logger } from '../logger.js';
import { AgentIdSchema, parseOrThrow } from '../task/index.js';
import type { Embedder } from './embedding/embedder.js';
import { HashedNgramEmbedder } from './embedding/hashedNgramEmbedder.js';
import { cosine } from './embedding/vectors.js';
import type { SummaryEntry, TaskEntry } from './entries.js';
import { entriesDb, loadEntries } from './entryStore.js';
import { checkSearch } from './facts/factInput.js';
import { type FactLimitOptions, type FactLimits, limitsOf } from './facts/factLimits.js';
import { FactRecords } from './facts/factRecords.js';
import { type Fact, type FactHit, oldestFirst, visibleTo } from './facts/factSchema.js';
import { wordCosine } from './facts/wordOverlap.js';
import { FactKeywordIndex } from './facts/factKeywordIndex.js';
import { candidateDepth, floorsOf, fuseChannels } from './facts/hybridHits.js';
import type { MemoryReader, ReaderFilter } from './memoryReader.js';
import { Tiers, inSession } from './tiers.js';

export interface StoredMemoryOptions {
  readonly agentId: string;
  /** The organisation's LMDB environment, where the agent's memory was kept. */
  readonly db: RootDatabase;
  readonly logger: Logger;
  /** The embedder the caller has (null: none): a search embeds its query with it when the facts' vectors were made with it. */
  readonly embedder: Embedder | null;
  /** The limits a search is checked against (`maxQueryChars`, `maxSearchResults`). */
  readonly limits?: FactLimitOptions;
}

/** The embedder that made `stored`'s vectors, when the caller has it or it needs nothing to run (the offline hashed n-grams); else null. */
function queryEmbedder(stored: string | null, given: Embedder | null): Embedder | null {
  if (stored === null) return null;
  if (given?.id === stored) return given;
  const hashed = new RegExp(`^${hashedNgramScheme}-(\\d+)$`).exec(stored);
  return hashed === null ? null : new HashedNgramEmbedder({ dimension: Number(hashed[1]) });
}

/**
 * What an agent's memory left in the store, read without opening it: its L1–L3 entries and its
 * L4 facts as they were last written, for a view of an agent whose memory is not open (it was
 * terminated, or is read offline by the CLI). Nothing is written, no index file is touched and
 * no retrieval is counted. A search compares the query with every stored vector (exact, where
 * the live memory asks its index), embedded with the embedder that made them; when that one is
 * not at hand (a remote model the reader has no access to), or the facts have no vectors, it
 * ranks them by shared words instead.
 */
export class StoredMemory implements MemoryReader {
  readonly agentId: string;
  readonly #tiers: Tiers;
  readonly #facts: readonly Fact[];
  readonly #records: FactRecords;
  readonly #embedder: Embedder | null;
  readonly #limits: FactLimits;

  private constructor(options: StoredMemoryOptions, tiers: Tiers, records: FactRecords) {
    this.agentId = options.agentId;
    this.#tiers = tiers;
    this.#records = records;
    this.#facts = records.facts().sort(oldestFirst);
    const meta = records.meta();
    const stored = meta === undefined || meta === 'invalid' ? (this.#facts[0]?.embedder ?? null) : meta.embedder;
    this.#embedder = queryEmbedder(stored, options.embedder);
    this.#limits = limitsOf(options.limits);
  }

  /** Reads `agentId`'s stored memory; a record that fails its schema is skipped with an error log line, as when a memory opens. */
  static read(options: StoredMemoryOptions): StoredMemory {
    parseOrThrow(AgentIdSchema, options.agentId, 'agentId');
    const { entries } = loadEntries(entriesDb(options.db), options.agentId, options.logger);
    return new StoredMemory(options, Tiers.of(entries), new FactRecords(options.db, options.agentId, options.logger));
  }

  l1(filter?: ReaderFilter): TaskEntry[] {
    return inSession(this.#tiers.l1, filter);
  }

  l2(filter?: ReaderFilter): TaskEntry[] {
    return inSession(this.#tiers.l2, filter);
  }

  l3(filter?: ReaderFilter): SummaryEntry[] {
    return inSession(this.#tiers.l3, filter);
  }

  facts(filter?: ReaderFilter): Fact[] {
    return this.#facts.filter((fact) => visibleTo(fact, filter?.sessionId));
  }

  /**
   * As a live memory's peek (see FactStore.peek): both channels over the stored facts and vectors,
   * fused, the default floors applied; no graph channel or re-rank (the agent's graph is not open).
   */
  async peek(text: string, k: number, filter?: ReaderFilter): Promise<FactHit[]> {
    const query = checkSearch(text, k, { sessionId: filter?.sessionId ?? null }, this.#limits);
    const facts = this.facts(filter);
    const byId = new Map(facts.map((fact) => [fact.id, fact]));
    const keywords = new FactKeywordIndex();
    for (const fact of facts) keywords.add(fact.id, fact.text);
    const similar = this.#embedder === null ? byWords(facts, query.text) : await this.#byVectors(facts, query.text, this.#embedder);
    similar.sort((a, b) => b.similarity - a.similarity || oldestFirst(a.fact, b.fact));
    const similarity = new Map(similar.map((hit) => [hit.fact.id, hit.similarity]));
    const depth = candidateDepth(query.k);
    const ranked = {
      similar: similar.slice(0, depth).map((hit) => ({ id: hit.fact.id, similarity: hit.similarity })),
      keyword: keywords.nearest(query.text, depth, () => true),
      similarityOf: (id: string) => similarity.get(id) ?? -1,
    };
    return fuseChannels(ranked, floorsOf({}))
      .slice(0, query.k)
      .flatMap(({ key, similarity: cosine, channels }) => {
        const fact = byId.get(key);
        return fact === undefined ? [] : [{ fact, similarity: cosine, channels }];
      });
  }

  /** Every fact with a vector of `embedder`'s, with its cosine to `text`. */
  async #byVectors(facts: readonly Fact[], text: string, embedder: Embedder): Promise<{ fact: Fact; similarity: number }[]> {
    const [query] = await embedder.embed([text]);
    if (query === undefined) return [];
    const vectors = new Map<string, Float32Array>();
    for (const stored of this.#records.vectors()) if (stored.embedder === embedder.id) vectors.set(stored.id, stored.vector);
    return facts.flatMap((fact) => {
      const vector = vectors.get(fact.id);
      return vector === undefined ? [] : [{ fact, similarity: cosine(query, vector) }];
    });
  }
}

/** Every fact with its word-set cosine to `text` (how a memory without an embedder ranks them). */
function byWords(facts: readonly Fact[], text: string): { fact: Fact; similarity: number }[] {
  return facts.map((fact) => ({ fact, similarity: wordCosine(text, fact.text) }));
}
