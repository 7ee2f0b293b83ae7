import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { TaskIdSchema, parseOrThrow } from '../../task/index.js';
import type { FactLimits } from './factLimits.js';
import { type NewFact, NewFactSchema } from './factSchema.js';

// What callers give a fact store (a model's `remember` call among them), checked before anything
// is embedded or written: a bad value is refused naming the field, and a value past a limit naming
// the limit.

/** Bytes of a value as JSON, as its metadata is counted. */
export function jsonBytes(value: Readonly<Record<string, unknown>>): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** A valid new fact within the limits, or a ValidationError naming what is wrong under `field`. */
export function checkNewFact(input: unknown, limits: FactLimits, field = 'fact'): NewFact {
  const fact = parseOrThrow(NewFactSchema, input, field);
  if (fact.text.length > limits.maxFactChars) {
    throw new ValidationError(`${field}.text`, `is ${fact.text.length} characters, more than maxFactChars (${limits.maxFactChars}); say it shorter`);
  }
  if (fact.metadata !== undefined && jsonBytes(fact.metadata) > limits.maxMetadataBytes) {
    throw new ValidationError(`${field}.metadata`, `is ${jsonBytes(fact.metadata)} bytes as JSON, more than maxMetadataBytes (${limits.maxMetadataBytes})`);
  }
  return fact;
}

const FilterSchema = z.object({ sessionId: TaskIdSchema.nullable() });
// Made once: a zod schema costs far more to make than to check a value with (every turn searches).
const QueryTextSchema = z.string().refine((value) => value.trim() !== '', 'must not be blank');
const ResultCountSchema = z.number().int().positive();

/** A valid search (text, k, filter) within the limits, or a ValidationError naming what is wrong. */
export function checkSearch(text: unknown, k: unknown, filter: unknown, limits: FactLimits): { text: string; k: number; sessionId: string | null } {
  const query = parseOrThrow(QueryTextSchema, text, 'text');
  if (query.length > limits.maxQueryChars)
    throw new ValidationError('text', `is ${query.length} characters, more than maxQueryChars (${limits.maxQueryChars})`);
  const count = parseOrThrow(ResultCountSchema, k, 'k');
  if (count > limits.maxSearchResults) throw new ValidationError('k', `is ${count}, more than maxSearchResults (${limits.maxSearchResults})`);
  return { text: query, k: count, sessionId: parseOrThrow(FilterSchema, filter, 'filter').sessionId };
}
