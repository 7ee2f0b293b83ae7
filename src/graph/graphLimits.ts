import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';

/**
 * Every bound of one graph, with its default: one schema gives the defaults, the checks (a bad
 * value is refused naming the option) and the type. A graph lives in memory whole, so its size is
 * bounded by these: at the defaults about 10,000 nodes of at most 4,000 characters each.
 */
export const GraphLimitsSchema = z
  .object({
    /** Nodes one graph holds; one more is refused with `memory_full`. */
    maxNodes: z.number().int().positive().default(10_000),
    /** Edges one graph holds; one more is refused with `memory_full`. */
    maxEdges: z.number().int().positive().default(50_000),
    /** Links one `linkMany` call may carry: the checks of a batch run in one synchronous section, and its edges go to disk in one transaction. */
    maxLinksPerBatch: z.number().int().positive().default(10_000),
    /** Characters of a node's content. */
    maxContentChars: z.number().int().positive().default(4000),
    /** Characters of a note's title. */
    maxTitleChars: z.number().int().positive().default(200),
    /** Tags of one note. */
    maxTags: z.number().int().nonnegative().default(32),
    /** Characters of one tag. */
    maxTagChars: z.number().int().positive().default(64),
    /** Characters of a note's source (a path, a URL). */
    maxSourceChars: z.number().int().positive().default(2048),
    /** Bytes of a node's metadata, as JSON. */
    maxMetadataBytes: z.number().int().positive().default(4096),
  })
  .strict();

export type GraphLimits = z.infer<typeof GraphLimitsSchema>;
export type GraphLimitOptions = z.input<typeof GraphLimitsSchema>;

const defaultLimits = GraphLimitsSchema.parse({});

/** The limits `options` give (the defaults for what they leave out), or a ValidationError naming the bad one (`limits.maxNodes`). */
export function graphLimitsOf(options: GraphLimitOptions | undefined): GraphLimits {
  return options === undefined ? defaultLimits : parseOrThrow(GraphLimitsSchema, options, 'limits');
}
