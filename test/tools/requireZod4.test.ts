import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as zod3 } from 'zod-v3';
import { z as zod4OfZod3 } from 'zod-v3/v4';
import { TroupeError } from '../../src/errors.js';
import { defineTool, parametersJsonSchema } from '../../src/tools/tool.js';
import { toolFromFunction } from '../../src/tools/toolFromFunction.js';

const execute = async (): Promise<{ content: string }> => ({ content: 'ok' });

/** A schema of another zod, as a JavaScript caller (or mismatched types) would pass it. */
const foreign = (schema: unknown): z.ZodType => schema as z.ZodType;

describe('tools refuse a schema that is not zod 4', () => {
  it('defineTool: a zod 3 schema is refused at once, with an error that says so', () => {
    const define = (): unknown => defineTool({ name: 'weather', description: 'd', parameters: foreign(zod3.object({ city: zod3.string() })), execute });
    expect(define).toThrow(TroupeError);
    expect(define).toThrow(/^tool "weather": parameters is a zod 3 schema; troupe needs a zod 4 schema \(zod is a peer dependency, \^4/);
    // The fix it names is zod 4 itself: troupe's own schemas need it, so zod 3.25's `zod/v4` is no way out.
    expect(define).toThrow(/npm install zod@\^4/);
  });

  it('toolFromFunction: the same', () => {
    const make = (): unknown =>
      toolFromFunction(
        function weather() {
          return 'rain';
        },
        { description: 'd', parameters: foreign(zod3.object({ city: zod3.string() })) },
      );
    expect(make).toThrow(/tool "weather": parameters is a zod 3 schema/);
  });

  it('something that is no zod schema at all is refused too', () => {
    const define = (): unknown => defineTool({ name: 'raw', description: 'd', parameters: foreign({ type: 'object', properties: {} }), execute });
    expect(define).toThrow(/^tool "raw": parameters must be a zod 4 schema/);
  });

  it('zod 4 schemas pass, including those of zod 3.25 (`zod/v4`), and give the model its JSON Schema', () => {
    for (const parameters of [z.object({ city: z.string() }), foreign(zod4OfZod3.object({ city: zod4OfZod3.string() }))]) {
      const tool = defineTool({ name: 'weather', description: 'd', parameters, execute });
      expect(parametersJsonSchema(tool.parameters)).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    }
  });
});
