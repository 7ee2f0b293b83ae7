import { TroupeError } from '../errors.js';

/** What every zod 4 schema carries (zod 3's have `_def` only): its version, among other internals. */
interface Zod4Internals {
  readonly _zod?: { readonly version?: { readonly major?: unknown } };
}

/**
 * Refuses a tool's `parameters` unless it is a zod 4 schema. zod is a peer dependency (^4):
 * troupe validates arguments and generates the JSON Schema the model sees with the zod the
 * application installed, and a zod 3 schema would otherwise fail later, at the first model
 * call, with an error from deep inside zod. (A schema from `zod/v4` of zod 3.25 is a zod 4 one and
 * passes, but troupe itself needs zod 4 installed: see checkZodPeer.ts.)
 */
export function requireZod4(parameters: unknown, toolName: string): void {
  const internals = typeof parameters === 'object' && parameters !== null ? (parameters as Zod4Internals)._zod : undefined;
  if (internals?.version?.major === 4) return;
  const zod3 = typeof parameters === 'object' && parameters !== null && '_def' in parameters && internals === undefined;
  throw new TroupeError(
    'invalid_input',
    zod3
      ? `tool "${toolName}": parameters is a zod 3 schema; troupe needs a zod 4 schema (zod is a peer dependency, ^4: npm install zod@^4, and build it with that zod)`
      : `tool "${toolName}": parameters must be a zod 4 schema, e.g. z.object({ city: z.string() })`,
  );
}
