import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';

const hour = 3_600_000;
const day = 24 * hour;

const count = (fallback: number): z.ZodDefault<z.ZodNumber> => z.number().int().positive().default(fallback);
const duration = (fallback: number): z.ZodDefault<z.ZodNumber> => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).default(fallback);

/**
 * Every capacity, age, threshold and size of one agent's memory (L1–L3 and the promotion to
 * L4), with its default. Capacities are soft between an `observe` and the next compaction:
 * a tier may hold up to `maxBacklog` entries more while compaction catches up, never more.
 */
export const MemoryLimitsSchema = z
  .object({
    /** Recent full Tasks kept in L1; past it the oldest leave (to L2 when important, else to L3). */
    l1Capacity: count(50),
    /** How long a Task stays in L1. */
    l1MaxAgeMs: duration(hour),
    /** Importance above which a Task is marked for L2 when it leaves L1. */
    l2Threshold: z.number().min(0).max(1).default(0.6),
    /** Important full Tasks kept in L2; past it those of lowest effective importance go to L3. */
    l2Capacity: count(50),
    /** How long a Task stays in L1 and L2 together, counted from when it was observed. */
    l2MaxAgeMs: duration(day),
    /** Summaries kept in L3; past it those of lowest effective importance go to L4 as facts. */
    l3Capacity: count(500),
    /** How long a summary stays in L3, counted from the newest Task it summarises. */
    l3MaxAgeMs: duration(7 * day),
    /** Entries a tier may hold beyond its capacity while compaction catches up; past it, observe refuses a Task and compaction moves nothing into that tier. */
    maxBacklog: count(200),
    /** Time in which importance halves (the decay of effective importance). */
    halfLifeMs: duration(7 * day),
    /** Effective importance each retrieval adds. */
    retrievalBoost: z.number().min(0).max(1).default(0.05),
    /** Entries one `compact` call moves at most, so a call is a bounded unit of work. */
    entriesPerStep: count(20),
    /** Longest L3 summary, in characters (UTF-16 code units, as JavaScript counts them). */
    summaryMaxChars: z.number().int().min(20).max(200).default(200),
    /** Facts kept from one batch of summaries moving to L4; the rest of what a helper returned is dropped, with a log line. */
    maxFactsPerBatch: count(8),
    /** Longest L4 fact made from summaries, in characters. */
    factMaxChars: z.number().int().min(20).max(500).default(500),
  })
  .strict();

export type MemoryLimits = Readonly<z.infer<typeof MemoryLimitsSchema>>;
export type MemoryLimitsInput = z.input<typeof MemoryLimitsSchema>;

// The runtime hands every agent the same limits object: parsing each object once lets 10,000
// agents share one parsed copy instead of holding one each.
const parsed = new WeakMap<object, MemoryLimits>();
const noLimitsGiven: MemoryLimitsInput = Object.freeze({});

/**
 * L1 entries, counting those work already taken is expected to add, up to which an agent takes new
 * work: a quarter of the backlog is left for when that estimate falls short.
 */
export function intakeBound(limits: MemoryLimits): number {
  return limits.l1Capacity + limits.maxBacklog - Math.floor(limits.maxBacklog / 4);
}

/**
 * The most entries one Task is expected to add: half the backlog (at least a request and its
 * answer), and never so many that an L1 at its capacity would admit no Task at all.
 */
export function maxEntriesPerTask(limits: MemoryLimits): number {
  return Math.min(intakeBound(limits) - limits.l1Capacity, Math.max(2, Math.floor(limits.maxBacklog / 2)));
}

/** The limits with their defaults, or a ValidationError naming the offending option (`memory.l1Capacity`). */
export function memoryLimits(input: MemoryLimitsInput = noLimitsGiven): MemoryLimits {
  const known = parsed.get(input);
  if (known !== undefined) return known;
  const limits: MemoryLimits = Object.freeze(parseOrThrow(MemoryLimitsSchema, input, 'memory'));
  parsed.set(input, limits);
  parsed.set(limits, limits);
  return limits;
}
