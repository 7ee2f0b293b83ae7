import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentPage,
  type AgentView,
  type Runtime,
  type ShutdownSummary,
  type Tool,
  type ToolContext,
  type ToolResult,
  createRuntime,
  defineTool,
  toolFromFunction,
} from '../../src/index.js';

// Type tests of the public API, imported as a user imports it. `expectTypeOf` does nothing at
// run time: these cases pass or fail when `npm run typecheck` (tsc over test/) checks them, and
// each `@ts-expect-error` fails the type check if the error it expects ever goes away. Vitest
// runs them too, so they are listed with the other tests, but running them proves nothing more.

const weatherParameters = z.object({ city: z.string(), days: z.number().int().optional() });
type WeatherArgs = { city: string; days?: number | undefined };
const context = {} as ToolContext;

describe('defineTool', () => {
  it('infers execute’s arguments from the zod schema and keeps the schema in the Tool type', () => {
    const weather = defineTool({
      name: 'weather',
      description: 'The weather in a city.',
      parameters: weatherParameters,
      execute: async (args) => {
        expectTypeOf(args).toEqualTypeOf<WeatherArgs>();
        return { content: `sunny in ${args.city}` };
      },
    });
    expectTypeOf(weather).toEqualTypeOf<Tool<typeof weatherParameters>>();
    expectTypeOf<typeof weather.execute>().parameter(0).toEqualTypeOf<WeatherArgs>();
    expectTypeOf<typeof weather.execute>().returns.toEqualTypeOf<Promise<ToolResult>>();
    // @ts-expect-error city is a string in the schema, so a number is refused
    expectTypeOf<typeof weather.execute>().toBeCallableWith({ city: 1 }, context);
  });

  it('refuses an execute whose arguments disagree with the schema, or that returns no ToolResult', () => {
    defineTool({
      name: 'weather',
      description: 'The weather in a city.',
      parameters: weatherParameters,
      // @ts-expect-error the schema says city is a string, the function wants a number
      execute: async (args: { city: number }) => ({ content: String(args.city) }),
    });
    defineTool({
      name: 'weather',
      description: 'The weather in a city.',
      parameters: weatherParameters,
      // @ts-expect-error execute must resolve to a ToolResult, not a bare string
      execute: async (args) => args.city,
    });
  });
});

describe('toolFromFunction', () => {
  const addParameters = z.object({ a: z.number(), b: z.number() });

  it('types the function’s arguments from the schema and wraps any JSON return in a ToolResult', () => {
    const add = toolFromFunction(
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b: number }>();
        return args.a + args.b;
      },
      { name: 'add', description: 'Adds two numbers.', parameters: addParameters },
    );
    expectTypeOf(add).toEqualTypeOf<Tool<typeof addParameters>>();
    expectTypeOf<typeof add.execute>().returns.toEqualTypeOf<Promise<ToolResult>>();
    expectTypeOf(toolFromFunction<typeof addParameters>).toBeCallableWith(async ({ a }) => ({ sum: a }), {
      description: 'An async function returning a JSON object is a tool too.',
      parameters: addParameters,
    });
  });

  it('refuses functions whose arguments or result do not fit', () => {
    // @ts-expect-error the schema gives a number, the function wants a string
    toolFromFunction((args: { a: string }) => args.a, { name: 'wrong', description: 'd', parameters: addParameters });
    // @ts-expect-error a function is not JSON, so it cannot be a tool's result
    toolFromFunction(() => () => 1, { name: 'wrong', description: 'd', parameters: addParameters });
  });
});

describe('Runtime', () => {
  it('is created asynchronously', () => {
    expectTypeOf(createRuntime).returns.toEqualTypeOf<Promise<Runtime>>();
  });

  it('answers submit, send and spawn with an id, shutdown with a summary, agents() with views', () => {
    expectTypeOf<Runtime['submit']>().returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf<Runtime['send']>().returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf<Runtime['spawn']>().returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf<Runtime['shutdown']>().returns.toEqualTypeOf<Promise<ShutdownSummary>>();
    expectTypeOf<Runtime['agents']>().returns.toEqualTypeOf<AgentView[]>();
    expectTypeOf<Runtime['agentPage']>().returns.toEqualTypeOf<AgentPage<AgentView>>();
    expectTypeOf<Runtime['agentPage']>().toBeCallableWith({ status: 'terminated', offset: 0, limit: 10 });
    // @ts-expect-error a status is active or terminated
    expectTypeOf<Runtime['agentPage']>().toBeCallableWith({ status: 'gone' });
  });

  it('takes the text of submit and the agent id and text of send as plain strings', () => {
    expectTypeOf<Runtime['submit']>().toBeCallableWith('write a haiku about rain');
    expectTypeOf<Runtime['send']>().toBeCallableWith('agent-1', 'hello');
    // @ts-expect-error submit takes the text itself, not an object around it
    expectTypeOf<Runtime['submit']>().toBeCallableWith({ text: 'write a haiku' });
    // @ts-expect-error send needs the receiving agent's id before the text
    expectTypeOf<Runtime['send']>().toBeCallableWith('hello');
  });
});
