import { z } from 'zod';
import { parseOrThrow } from '../../task/index.js';

const day = 24 * 60 * 60 * 1000;
const unit = z.number().min(0).max(1);

/**
 * Every bound and threshold of one agent's L4, with its default: one schema gives the defaults,
 * the checks (a bad value is refused naming the option) and the type. docs/memory.md's limits table
 * lists them.
 */
export const FactLimitsSchema = z
  .object({
    /** The most `compressAbove` may be set to: an agent never holds more than `compressAbove` facts. */
    maxFacts: z.number().int().positive().default(100_000),
    /** Characters of one fact's text. */
    maxFactChars: z.number().int().positive().max(10_000).default(500),
    /** Bytes of one fact's metadata, as JSON. */
    maxMetadataBytes: z.number().int().positive().default(4096),
    /** Characters of a search's query. */
    maxQueryChars: z.number().int().positive().default(4000),
    /** Results one search may ask for (its `k`). */
    maxSearchResults: z.number().int().positive().max(10_000).default(100),
    /** A new fact this close (cosine, or word overlap without an embedder) to one of the same scope and session is merged into it. */
    mergeThreshold: unit.default(0.92),
    /** Compression joins facts this close (cosine) into one cluster, through chains of such neighbours. */
    clusterThreshold: unit.default(0.8),
    /** A cluster is merged only when the merged fact's vector has at least this cosine to every original. */
    fidelityThreshold: unit.default(0.85),
    /**
     * The most facts an agent holds: an add that finds this many (and is no near-duplicate) waits
     * for a compression that makes room. Above it (a store opened with a lower one than it was
     * filled with), `needsCompression()` says so. Every fact an agent holds costs memory
     * while the agent lives (about 4 KB with 384 dimensions: hnswlib's copy of the vector and its
     * links, the JS copy searches within a session use, the record) and about 2 KB of store file
     * (scripts/factFootprint.ts): 4,000 facts are about 16 MB and 8 MB an agent at the most.
     */
    compressAbove: z.number().int().positive().default(4000),
    /**
     * A compression that was due keeps this many facts when merging clusters left more, and always
     * without an embedder: each session (and the agent-scope facts) keeps its most important within
     * an equal share (see dropsByGroup). One that makes room for an add keeps one fewer when this
     * is `compressAbove`, so the add fits.
     */
    keepTopN: z.number().int().positive().default(3200),
    /**
     * Adds that may wait for a compression at once (an add waits while one runs, and when the
     * store is full); one more is refused with `memory_full`. Each holds its text and vector.
     */
    maxWaitingAdds: z.number().int().nonnegative().default(1000),
    /**
     * Vectors of added facts that may wait for the index at once. An add puts its vector into the
     * index later, between turns of the event loop (an hnswlib insert takes about half a
     * millisecond): until then every search compares the query with it directly. An add that finds
     * this many waiting puts its own in at once. An import's turns wait whatever this is (at most
     * `compressAbove` of them). The vectors of a group small enough for its searches to compare
     * with each directly are kept out of the index instead, whatever this is (see
     * GroupedVectors.smallGroup). 0: every add puts its vector in at once, none kept out.
     */
    maxUnindexed: z.number().int().nonnegative().max(100_000).default(2048),
    /** Neighbours each fact is compared with when clustering (k of its k-NN query, not all pairs). */
    clusterNeighbours: z.number().int().positive().max(1000).default(10),
    /** Origins a fact's `mergedFrom` keeps (the newest). */
    maxMergedFrom: z.number().int().nonnegative().max(10_000).default(100),
    /** Time in which a fact's importance halves (see effectiveImportance). */
    halfLifeMs: z
      .number()
      .positive()
      .default(30 * day),
    /** What each retrieval adds to a fact's effective importance. */
    retrievalBoost: unit.default(0.05),
    /** hnswlib's M: links per node (more: better recall, more memory). */
    m: z.number().int().min(2).max(100).default(16),
    /** hnswlib's efConstruction: candidates considered when inserting. */
    efConstruction: z.number().int().positive().max(10_000).default(200),
    /**
     * hnswlib's ef: candidates considered when searching. At 100,000 structured vectors, 80 kept
     * recall@10 at 1.0 (64 fell to 0.99) at 0.49 ms p50 against 0.58 ms for 100 (BENCH_ONLY=L4).
     */
    efSearch: z.number().int().positive().max(10_000).default(80),
    /** Vectors an index has room for when first made; it doubles when full. */
    initialCapacity: z.number().int().positive().default(64),
    /**
     * Search by comparing the query with every vector instead of through hnswlib's graph: what L4
     * does anyway when hnswlib-node is not installed. Exact, with no index file, and linear in the
     * facts (hnswlib's search grows with their logarithm).
     */
    exactSearch: z.boolean().default(false),
    /**
     * Links a search's graph channel follows from its best hits (a turn to the turns beside it, a
     * fact to the events of its Tasks, a node along its edges); 0 turns the channel off.
     */
    graphDepth: z.number().int().min(0).max(3).default(1),
    /** Hits the graph channel may add to what the keyword and vector channels found, however many links it meets. */
    graphNodes: z.number().int().nonnegative().max(200).default(10),
    /** The best hits of the keyword and vector channels the graph channel starts from. */
    graphSeeds: z.number().int().positive().max(50).default(5),
    /** How much a hit's recency (halved every `halfLifeMs` before the newest hit) raises its fused score in the re-rank: score × (1 + weights × signals). */
    recencyWeight: unit.default(0.1),
    /** How much a hit's importance (0..1) raises its fused score in the re-rank. */
    importanceWeight: unit.default(0.1),
    /** How much a hit's links to the other hits (their weights summed, relative to the best-linked hit) raise its fused score in the re-rank. */
    linkWeight: unit.default(0.1),
  })
  .strict()
  .refine((limits) => limits.compressAbove <= limits.maxFacts, { message: 'must be at most maxFacts', path: ['compressAbove'] })
  .refine((limits) => limits.keepTopN <= limits.compressAbove, { message: 'must be at most compressAbove', path: ['keepTopN'] });

export type FactLimits = z.infer<typeof FactLimitsSchema>;
export type FactLimitOptions = z.input<typeof FactLimitsSchema>;

const defaultLimits = FactLimitsSchema.parse({});
// Parsed once per limits object, however many agents share it (heap per agent stays small).
const parsedLimits = new WeakMap<FactLimitOptions, FactLimits>();

/** The limits `options` give (the defaults for what they leave out), or a ValidationError naming the bad one (`limits.mergeThreshold`). */
export function limitsOf(options: FactLimitOptions | undefined): FactLimits {
  if (options === undefined) return defaultLimits;
  let limits = parsedLimits.get(options);
  if (limits === undefined) parsedLimits.set(options, (limits = parseOrThrow(FactLimitsSchema, options, 'limits')));
  return limits;
}
