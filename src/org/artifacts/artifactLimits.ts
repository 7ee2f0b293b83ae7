import { z } from 'zod';
import { TroupeError } from '../../errors.js';

/**
 * The artifact store's limits, flat and named as runtime options are (its `.shape` fits into the
 * runtime's config). The same with a data dir and without one (then in memory).
 */
export const ArtifactLimitsSchema = z.object({
  /** Bytes one artifact may have (UTF-8 for text); a larger one is not stored, and the tool call's result tells the model so. */
  maxArtifactBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Artifacts one Task's tool calls may store; past it the next is refused the same way. */
  maxArtifactsPerTask: z.number().int().positive().default(100),
  /**
   * Bytes of every artifact stored together (the data dir's, or memory's); past it the artifacts of
   * the Tasks that ended first are evicted, and a new artifact is refused when none is left to evict.
   */
  maxArtifactStoreBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024),
  /** Characters of a text artifact the model sees beside its reference (0: none); never the whole of a larger one. */
  artifactPreviewChars: z.number().int().nonnegative().max(100_000).default(500),
});

export type ArtifactLimits = z.infer<typeof ArtifactLimitsSchema>;

/** The refusal of an artifact past a limit: the message says which, and what it was. */
export function refusal(message: string): TroupeError {
  return new TroupeError('artifact_limit', message);
}

const textTypes = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|x-ndjson|csv)\b|[^;]*\+(json|xml)\b)/i;

/**
 * At most `chars` characters of an artifact's start, for the model; none for bytes unless the
 * media type says text, and none when `chars` is 0.
 */
export function previewOf(content: string | Uint8Array, mediaType: string, chars: number): string | undefined {
  if (chars === 0) return undefined;
  // Taken a little past `chars` characters (a character is at most 2 UTF-16 units, 4 UTF-8 bytes), so the cut is ours.
  let text: string;
  let more: boolean;
  if (typeof content === 'string') {
    text = content.slice(0, chars * 2 + 2);
    more = content.length > text.length;
  } else if (textTypes.test(mediaType)) {
    const taken = Math.min(content.byteLength, chars * 4 + 4);
    text = Buffer.from(content.buffer, content.byteOffset, taken).toString('utf8');
    more = content.byteLength > taken;
  } else return undefined;
  const points = Array.from(text);
  return points.length <= chars && !more ? text : `${points.slice(0, chars).join('')}…`;
}
