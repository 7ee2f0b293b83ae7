import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/** zod's `anyOf: [X, { type: 'null' }]` as `X` with `type: [X's type, 'null']`, recursively. */
function withoutNullableAnyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullableAnyOf);
  if (typeof value !== 'object' || value === null) return value;
  const schema: JsonSchema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutNullableAnyOf(inner)]));
  const anyOf = schema['anyOf'];
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return schema;
  const [first, second] = anyOf as JsonSchema[];
  if (second?.['type'] !== 'null' || typeof first?.['type'] !== 'string') return schema;
  const { anyOf: _nullable, ...rest } = schema;
  return { ...rest, ...first, type: [first['type'], 'null'] };
}

/**
 * A reply's zod schema as the JSON schema Fastify compiles into its serializer
 * (fast-json-stringify) once, at registration: replies are written without `JSON.stringify`'s
 * walk, and only the properties the schema names leave the server. Nullable fields become type
 * lists, which fast-json-stringify writes directly, rather than `anyOf`, which it must test for.
 */
export function responseSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return withoutNullableAnyOf(json) as JsonSchema;
}
