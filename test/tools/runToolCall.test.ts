import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TroupeError } from '../../src/errors.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { createTask } from '../../src/task/index.js';
import { sequentialIds } from '../../src/ids.js';
import {
  type SocietyPort,
  type Tool,
  type ToolContext,
  type ToolResult,
  ToolRegistry,
  ToolResultSchema,
  defineTool,
  jsonResult,
  runToolCall,
  toolFromFunction,
} from '../../src/tools/index.js';

const clock = new SimulatedClock(1_000);

/** Meta-tools are not under test here: any use of the society is a test bug. */
const noSociety = new Proxy(
  {},
  {
    get: (_, key) => () => {
      throw new Error(`society.${String(key)} called`);
    },
  },
) as SocietyPort;

function contextFor(signal = new AbortController().signal): ToolContext {
  const task = createTask({ from: 'user', to: 'root', action: 'execute', parameters: { text: 'hi' } }, { ids: sequentialIds(), clock });
  return { agentId: 'root', task, signal, society: noSociety };
}

function call(name: string, args: unknown): { id: string; name: string; arguments: string } {
  return { id: 'call_1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

function codeOf(result: ToolResult): unknown {
  return (JSON.parse(result.content) as { code?: unknown }).code;
}

/** Whether `promise` has settled after the event loop has had a turn (no real sleeps). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const weatherTool = defineTool({
  name: 'weather',
  description: 'Weather for a city.',
  parameters: z.object({ city: z.string().min(1), options: z.object({ days: z.number().int().positive() }).optional() }),
  execute: ({ city, options }) => Promise.resolve(jsonResult({ city, days: options?.days ?? 1 })),
});

/** A tool that never finishes on its own; it records the signal it was given. */
function hangingTool(timeoutMs?: number): Tool & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    ...defineTool({
      name: 'hang',
      description: 'Never answers.',
      parameters: z.object({}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute: (_, { signal }) => {
        signals.push(signal);
        return new Promise<ToolResult>(() => undefined);
      },
    }),
    signals,
  };
}

describe('runToolCall', () => {
  const registry = new ToolRegistry().register(weatherTool);
  const options = { registry, defaultTimeoutMs: 5_000, clock };

  it('answers an unknown tool with an error naming the tools there are', async () => {
    const result = await runToolCall(call('forecast', {}), contextFor(), options);
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe('unknown_tool');
    expect(result.content).toContain('forecast');
    expect(result.content).toContain('available: weather');
  });

  it('answers arguments that are not JSON with invalid_input, quoting them', async () => {
    const result = await runToolCall(call('weather', '{"city": '), contextFor(), options);
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe('invalid_input');
    expect(result.content).toContain('not valid JSON');
    expect(result.content).toContain('{\\"city\\": ');
  });

  it('names the offending field when arguments fail the schema', async () => {
    const missing = await runToolCall(call('weather', {}), contextFor(), options);
    expect(codeOf(missing)).toBe('invalid_input');
    expect(JSON.parse(missing.content)).toMatchObject({ error: expect.stringMatching(/invalid arguments for weather: city: /) as unknown });

    const nested = await runToolCall(call('weather', { city: 'Oslo', options: { days: 1.5 } }), contextFor(), options);
    expect(JSON.parse(nested.content)).toMatchObject({ error: expect.stringContaining('options.days: ') as unknown });

    const fine = await runToolCall(call('weather', { city: 'Oslo', options: { days: 2 } }), contextFor(), options);
    expect(fine).toEqual({ content: '{"city":"Oslo","days":2}', metadata: { city: 'Oslo', days: 2 } });
  });

  it('turns a tool that throws or rejects into an error result carrying its message', async () => {
    const rejects = defineTool({ name: 'rejects', description: '', parameters: z.object({}), execute: () => Promise.reject(new Error('disk full')) });
    const throws = defineTool({
      name: 'throws',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new TypeError('bad state');
      },
    });
    const local = { ...options, registry: new ToolRegistry().register(rejects, throws) };

    const rejected = await runToolCall(call('rejects', {}), contextFor(), local);
    expect(rejected).toMatchObject({ isError: true, content: expect.stringContaining('rejects failed: disk full') as unknown });
    const thrown = await runToolCall(call('throws', {}), contextFor(), local);
    expect(thrown).toMatchObject({ isError: true, content: expect.stringContaining('throws failed: bad state') as unknown });
    expect([codeOf(rejected), codeOf(thrown)]).toEqual(['tool_error', 'tool_error']);
    expect(clock.pending).toBe(0);
  });

  it('keeps the code of a coded error a tool throws', async () => {
    const refuses = defineTool({
      name: 'refuses',
      description: '',
      parameters: z.object({}),
      execute: () => Promise.reject(new TroupeError('not_parent', 'not yours')),
    });
    const result = await runToolCall(call('refuses', {}), contextFor(), { ...options, registry: new ToolRegistry().register(refuses) });
    expect(result).toMatchObject({ isError: true, metadata: { code: 'not_parent' } });
    expect(codeOf(result)).toBe('not_parent');
  });

  it('times a hanging tool out on the injected clock and aborts its signal', async () => {
    const tool = hangingTool();
    const running = runToolCall(call('hang', {}), contextFor(), { ...options, registry: new ToolRegistry().register(tool) });
    expect(clock.pending).toBe(1);

    clock.advance(4_999);
    expect(await settled(running)).toBe(false);
    expect(tool.signals[0]?.aborted).toBe(false);

    clock.advance(1);
    const result = await running;
    expect(codeOf(result)).toBe('tool_timeout');
    expect(result.content).toContain('hang timed out after 5000 ms');
    expect(tool.signals[0]?.aborted).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it("prefers the tool's own timeout to the default", async () => {
    const tool = hangingTool(200);
    const running = runToolCall(call('hang', {}), contextFor(), { ...options, registry: new ToolRegistry().register(tool) });
    clock.advance(200);
    expect(codeOf(await running)).toBe('tool_timeout');
  });

  it("aborts the tool when the caller's signal aborts, and answers at once", async () => {
    const tool = hangingTool();
    const parent = new AbortController();
    const running = runToolCall(call('hang', {}), contextFor(parent.signal), { ...options, registry: new ToolRegistry().register(tool) });
    expect(tool.signals[0]?.aborted).toBe(false);

    parent.abort(new Error('agent terminated'));
    const result = await running;
    expect(codeOf(result)).toBe('aborted');
    expect(result.content).toContain('agent terminated');
    expect(tool.signals[0]?.aborted).toBe(true);
    expect(tool.signals[0]?.reason).toBe(parent.signal.reason);
    expect(clock.pending).toBe(0);
  });

  it('does not start a tool whose caller is already aborted', async () => {
    const tool = hangingTool();
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const result = await runToolCall(call('hang', {}), contextFor(parent.signal), { ...options, registry: new ToolRegistry().register(tool) });
    expect(codeOf(result)).toBe('aborted');
    expect(tool.signals).toHaveLength(0);
  });

  it('hides tools a policy denies, or does not allow, from both the definitions and the calls', async () => {
    const echo = toolFromFunction(
      function echo({ text }: { text: string }) {
        return text;
      },
      { description: 'Echo', parameters: z.object({ text: z.string() }) },
    );
    const local = new ToolRegistry().register(weatherTool, echo);

    const deny = { deny: ['weather'] };
    expect(local.definitions(deny).map((definition) => definition.name)).toEqual(['echo']);
    const denied = await runToolCall(call('weather', { city: 'Oslo' }), contextFor(), { ...options, registry: local, policy: deny });
    expect(codeOf(denied)).toBe('unknown_tool');
    expect(denied.content).toContain('available: echo');

    const allow = { allow: ['weather'] };
    expect(local.definitions(allow).map((definition) => definition.name)).toEqual(['weather']);
    expect(codeOf(await runToolCall(call('echo', { text: 'x' }), contextFor(), { ...options, registry: local, policy: allow }))).toBe('unknown_tool');
    expect(await runToolCall(call('echo', { text: 'x' }), contextFor(), { ...options, registry: local, policy: deny })).toEqual({ content: 'x' });
  });
});

describe('toolFromFunction', () => {
  const parameters = z.object({ value: z.json() });

  async function runWith(tool: Tool, args: unknown): Promise<ToolResult> {
    return runToolCall(call(tool.name, args), contextFor(), { registry: new ToolRegistry().register(tool), defaultTimeoutMs: 1_000, clock });
  }

  it('takes the name of the function, validates typed arguments and passes the context', async () => {
    const seen: string[] = [];
    async function addNumbers(args: { a: number; b: number }, context: ToolContext) {
      seen.push(context.agentId);
      return Promise.resolve(args.a + args.b);
    }
    const tool = toolFromFunction(addNumbers, { description: 'Adds', parameters: z.object({ a: z.number(), b: z.number() }) });
    expect(tool.name).toBe('addNumbers');
    expect(await runWith(tool, { a: 2, b: 3 })).toEqual({ content: '5' });
    expect(seen).toEqual(['root']);
    expect(codeOf(await runWith(tool, { a: 2 }))).toBe('invalid_input');
  });

  it('wraps strings as content, objects as JSON with metadata, other JSON as JSON, and passes ToolResults through', async () => {
    const identity = toolFromFunction(({ value }) => value, { name: 'identity', description: 'Returns its input', parameters });
    expect(await runWith(identity, { value: 'plain text' })).toEqual({ content: 'plain text' });
    expect(await runWith(identity, { value: { a: [1, null] } })).toEqual({ content: '{"a":[1,null]}', metadata: { a: [1, null] } });
    expect(await runWith(identity, { value: [1, 'two'] })).toEqual({ content: '[1,"two"]' });
    expect(await runWith(identity, { value: null })).toEqual({ content: 'null' });
    expect(await runWith(identity, { value: false })).toEqual({ content: 'false' });
    expect(await runWith(identity, { value: { content: 'done', isError: true } })).toEqual({ content: 'done', isError: true });
    // `content` that is not a string, or keys a ToolResult does not have: plain JSON.
    expect(await runWith(identity, { value: { content: 3 } })).toEqual({ content: '{"content":3}', metadata: { content: 3 } });
    expect(await runWith(identity, { value: { content: 'x', extra: 1 } })).toEqual({
      content: '{"content":"x","extra":1}',
      metadata: { content: 'x', extra: 1 },
    });
  });

  it('refuses an anonymous function without a name, or a name a model cannot call', () => {
    expect(() => toolFromFunction(() => 'x', { description: '', parameters })).toThrow(/tool name ""/);
    expect(() => toolFromFunction(() => 'x', { name: 'has space', description: '', parameters })).toThrow(/tool name "has space"/);
  });

  it('takes from a tool exactly the results ToolResultSchema takes, whether or not they skip the parse', async () => {
    const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.double(), fc.constantFrom(NaN, Infinity, null, undefined, true));
    // Mostly results with text and flat metadata (the ones that may skip the parse), some with anything else.
    const returned = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            content: fc.oneof({ weight: 5, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: fc.integer() }),
            metadata: fc.oneof({ weight: 5, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), scalar) }, scalar, fc.array(scalar)),
            isError: fc.oneof(fc.boolean(), fc.constant('yes')),
            extra: scalar,
          },
          { requiredKeys: ['content'] },
        ),
      },
      { weight: 1, arbitrary: scalar },
    );
    await fc.assert(
      fc.asyncProperty(returned, async (value) => {
        const tool = defineTool({
          name: 'give',
          description: 'Returns a fixed value.',
          parameters: z.object({}),
          execute: () => Promise.resolve(value as ToolResult),
        });
        const result = await runToolCall(call('give', {}), contextFor(), { registry: new ToolRegistry().register(tool), defaultTimeoutMs: 5_000, clock });
        const accepted = !(result.isError === true && result.content.includes('give returned an invalid result'));
        expect(accepted).toBe(ToolResultSchema.safeParse(value).success);
        if (accepted) expect(result).toEqual(ToolResultSchema.parse(value));
      }),
      { numRuns: 300 },
    );
  });
});
