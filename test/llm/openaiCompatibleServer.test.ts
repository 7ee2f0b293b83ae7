import OpenAI, { APIConnectionError, APIUserAbortError, InternalServerError, RateLimitError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashedNgramVector } from '../../src/hashedNgramVector.js';
import { toWireTools } from '../../src/llm/openaiWire.js';
import { type OpenAICompatibleServer, SimulatedClock, startOpenAICompatibleServer } from '../../src/testing.js';

// Everything here goes through the real `openai` SDK over loopback: nothing is mocked.

let server: OpenAICompatibleServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startOpenAICompatibleServer();
  client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

const hi = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }] };

async function drain(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Merges streamed tool-call fragments by index, as a client must. */
function mergeToolCalls(chunks: readonly ChatCompletionChunk[]): { id: string; name: string; arguments: string }[] {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const call of chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []))) {
    const merged = calls[call.index] ?? { id: '', name: '', arguments: '' };
    merged.id = call.id ?? merged.id;
    merged.name += call.function?.name ?? '';
    merged.arguments += call.function?.arguments ?? '';
    calls[call.index] = merged;
  }
  return calls;
}

const finishReasons = (chunks: readonly ChatCompletionChunk[]): (string | null)[] =>
  chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter((reason) => reason !== null);

describe('chat completions', () => {
  it('answers a non-streaming call with a chat.completion', async () => {
    server.script({ text: 'Hello there, world.' });
    const completion = await client.chat.completions.create(hi);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Hello there, world.' });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 });
    expect(server.chatRequests).toEqual([{ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], tools: [] }]);
    expect(server.remaining).toBe(0);
  });

  it('gives content null and the tool calls when a reply is only tool calls', async () => {
    server.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'rain' } }] });
    const { choices } = await client.chat.completions.create(hi);
    expect(choices[0]?.finish_reason).toBe('tool_calls');
    expect(choices[0]?.message.content).toBeNull();
    expect(choices[0]?.message.tool_calls).toEqual([{ id: 'call_1_0', type: 'function', function: { name: 'lookup', arguments: '{"q":"rain"}' } }]);
  });

  it('streams text in word-sized chunks that reassemble to the reply', async () => {
    server.script({ text: 'The rain falls softly on the roof.' });
    const chunks = await drain(await client.chat.completions.create({ ...hi, stream: true }));
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const pieces = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').filter((piece) => piece !== '');
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe('The rain falls softly on the roof.');
    expect(finishReasons(chunks)).toEqual(['stop']);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it('streams two tool calls as fragments that merge by index, OpenAI style', async () => {
    server.script({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { name: 'get_time', arguments: { zone: 'Europe/Paris' }, id: 'call_custom' },
      ],
    });
    const chunks = await drain(await client.chat.completions.create({ ...hi, stream: true }));
    const fragments = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    const headers = fragments.filter((fragment) => fragment.id !== undefined);
    expect(headers.map((fragment) => [fragment.index, fragment.type, fragment.function?.name])).toEqual([
      [0, 'function', 'get_weather'],
      [1, 'function', 'get_time'],
    ]);
    // Later fragments carry only the index and more arguments.
    for (const fragment of fragments.filter((item) => item.id === undefined)) {
      expect(Object.keys(fragment).sort()).toEqual(['function', 'index']);
      expect(Object.keys(fragment.function ?? {})).toEqual(['arguments']);
    }
    expect(fragments.filter((fragment) => fragment.index === 0).length).toBeGreaterThan(2);
    expect(mergeToolCalls(chunks)).toEqual([
      { id: 'call_1_0', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      { id: 'call_custom', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
    ]);
    expect(finishReasons(chunks)).toEqual(['tool_calls']);
  });

  it('sends string tool-call arguments verbatim, malformed JSON included', async () => {
    server.script({ toolCalls: [{ name: 'get_weather', arguments: '{"city": ' }] }, { toolCalls: [{ name: 'get_weather', arguments: '{"city": ' }] });
    const chunks = await drain(await client.chat.completions.create({ ...hi, stream: true }));
    expect(mergeToolCalls(chunks)[0]?.arguments).toBe('{"city": ');
    const whole = await client.chat.completions.create(hi);
    expect(whole.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { arguments: '{"city": ' } });
  });

  it('ends the stream with a usage chunk when stream_options.include_usage is set', async () => {
    server.script({ text: 'twelve chars' }, { text: 'twelve chars' });
    const withUsage = await drain(await client.chat.completions.create({ ...hi, stream: true, stream_options: { include_usage: true } }));
    const last = withUsage.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 });
    expect(withUsage.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const without = await drain(await client.chat.completions.create({ ...hi, stream: true }));
    expect(without.every((chunk) => chunk.usage === undefined && chunk.choices.length === 1)).toBe(true);
  });

  it('paces a stream with chunkDelayMs on its clock and stops writing when the client aborts mid-stream', async () => {
    await server.close();
    // The server's clock releases one chunk a step, so what the client sees does not hang on the machine's speed.
    const clock = new SimulatedClock();
    server = await startOpenAICompatibleServer({ chunkDelayMs: 20, clock });
    client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0 });
    server.script({ text: 'one two three four five six seven eight nine ten' }, { text: 'still here' });
    const created = client.chat.completions.create({ ...hi, stream: true });
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    // Nothing is written, the headers included, until the first pause is over.
    clock.advance(20);
    const stream = await created;
    const seen: string[] = [];
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? '');
      // Aborting through the stream's controller ends the loop quietly: the SDK does not throw.
      if (seen.length === 3) stream.controller.abort();
      else clock.advance(20);
    }
    expect(seen).toEqual(['', 'one ', 'two ']);
    // The server noticed the client leave: no pause of it is pending, and no more is written.
    await vi.waitFor(() => expect(clock.pending).toBe(0));
    expect((await client.chat.completions.create(hi)).choices[0]?.message.content).toBe('still here');
  });

  it('answers from the offline playbook when the script is empty', async () => {
    const tools = toWireTools(
      ['create_role', 'spawn_agent', 'delegate_task', 'terminate_agent'].map((name) => ({
        name,
        description: name,
        parameters: { type: 'object', properties: {} },
      })),
    );
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You lead.' },
        { role: 'user', content: '[from user · task t1 · execute]\nwrite a haiku' },
      ],
      tools,
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' ? call.function.name : undefined).toBe('create_role');
    expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined).toMatchObject({ name: 'poet' });
    expect(server.chatRequests[0]?.tools.map((tool) => tool.name)).toEqual(['create_role', 'spawn_agent', 'delegate_task', 'terminate_agent']);
  });

  it('uses a step computed from the request, and a custom fallback', async () => {
    await server.close();
    server = await startOpenAICompatibleServer({ fallback: () => ({ text: 'fallback' }) });
    client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0 });
    server.script((request) => ({ text: `you said ${request.messages.at(-1)?.content ?? ''}` }));
    expect((await client.chat.completions.create(hi)).choices[0]?.message.content).toBe('you said hi');
    expect((await client.chat.completions.create(hi)).choices[0]?.message.content).toBe('fallback');
  });
});

describe('failures', () => {
  it('429 with retryAfter → RateLimitError carrying the retry-after header', async () => {
    server.script({ status: 429, retryAfter: 2, message: 'slow down' });
    const error: unknown = await client.chat.completions.create(hi).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    const rateLimit = error as RateLimitError;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get('retry-after')).toBe('2');
    expect(rateLimit.code).toBe('rate_limit_exceeded');
    expect(rateLimit.message).toContain('slow down');
  });

  it('500 → InternalServerError, before any stream starts', async () => {
    server.script({ status: 500 }, { status: 503, message: 'overloaded' });
    await expect(client.chat.completions.create(hi)).rejects.toBeInstanceOf(InternalServerError);
    await expect(client.chat.completions.create({ ...hi, stream: true })).rejects.toMatchObject({ status: 503, type: 'server_error' });
  });

  it('a hanging request ends in APIUserAbortError when the caller aborts', async () => {
    server.script({ hang: true });
    const controller = new AbortController();
    const pending = client.chat.completions.create(hi, { signal: controller.signal }).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(server.chatRequests).toHaveLength(1));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
  });

  it('a dropped connection ends in APIConnectionError', async () => {
    server.script({ dropConnection: true });
    await expect(client.chat.completions.create(hi)).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('a stream line that is not JSON fails the iteration', async () => {
    server.script({ malformedChunk: true });
    // The SDK logs the bad line through its logger before throwing: keep the test output quiet.
    const quiet = new OpenAI({ apiKey: 'test', baseURL: server.baseURL, maxRetries: 0, logLevel: 'off' });
    const stream = await quiet.chat.completions.create({ ...hi, stream: true });
    await expect(drain(stream)).rejects.toBeInstanceOf(SyntaxError);
  });

  it('rejects a body without messages with a 400 naming the field', async () => {
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: "Missing required parameter: 'messages'.", type: 'invalid_request_error', param: 'messages', code: null },
    });
    const viaSdk: unknown = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'wizard', content: 'x' }] } as unknown as ChatCompletionCreateParamsBase)
      .catch((caught: unknown) => caught);
    expect(viaSdk).toMatchObject({ status: 400, param: 'messages[0].role' });
    expect(server.chatRequests).toEqual([]);
  });

  it('answers bodies that are not JSON with 400 and unknown routes with 404', async () => {
    const notJson = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: 'model=x' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toMatch(/not parse the request body as JSON/);
    const missing = await fetch(`${server.baseURL}/assistants`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { message: 'Invalid URL (GET /v1/assistants)', code: 'unknown_url' } });
  });

  it('refuses bodies over 10 MB with 413', async () => {
    const response = await fetch(`${server.baseURL}/embeddings`, { method: 'POST', body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(server.requests.at(-1)?.body).toBeNull();
  });
});

describe('embeddings and models', () => {
  it('returns hashed n-gram vectors (384 long by default) through the SDK default (base64) encoding', async () => {
    const response = await client.embeddings.create({ model: 'text-embedding-test', input: ['a', 'b'] });
    expect(server.requests[0]?.body).toMatchObject({ encoding_format: 'base64' });
    expect(response.data.map((item) => item.index)).toEqual([0, 1]);
    for (const [index, text] of ['a', 'b'].entries()) {
      const expected = hashedNgramVector(text, 384);
      const actual = response.data[index]?.embedding ?? [];
      expect(actual).toHaveLength(384);
      actual.forEach((value, i) => expect(Math.abs(value - (expected[i] ?? NaN))).toBeLessThan(1e-6));
    }
  });

  it('returns plain floats when asked for them', async () => {
    const response = await client.embeddings.create({ model: 'text-embedding-test', input: 'rain on the roof', encoding_format: 'float' });
    expect(response.data[0]?.embedding).toEqual(Array.from(hashedNgramVector('rain on the roof', 384)));
    expect(response.usage.prompt_tokens).toBe(4);
  });

  it('answers scripted embeddings steps in order, then the hashed vectors again, counting every valid call', async () => {
    server.scriptEmbeddings(
      { status: 429, retryAfter: 2, message: 'slow down' },
      { dimension: 8 },
      { vectors: [[0.6, 0.8]] },
      { raw: { status: 200, contentType: 'text/html', body: '<!doctype html>' } },
    );
    const input = { model: 'e', input: 'rain', encoding_format: 'float' as const };
    const limited = await client.embeddings.create(input).catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).message).toMatch(/slow down/);
    expect((await client.embeddings.create(input)).data[0]?.embedding).toHaveLength(8);
    expect((await client.embeddings.create(input)).data[0]?.embedding).toEqual([0.6, 0.8]);
    expect(await client.embeddings.create(input).catch((caught: unknown) => caught)).toBe('<!doctype html>');
    expect((await client.embeddings.create({ ...input, dimensions: 32 })).data[0]?.embedding).toEqual(Array.from(hashedNgramVector('rain', 32)));
    expect(server.embeddingCalls).toBe(5);
    expect(server.chatCalls).toBe(0);
  });

  it('hangs or drops an embeddings call when scripted to', async () => {
    server.scriptEmbeddings({ dropConnection: true }, { hang: true });
    expect(await client.embeddings.create({ model: 'e', input: 'x' }).catch((caught: unknown) => caught)).toBeInstanceOf(APIConnectionError);
    const controller = new AbortController();
    const hanging = client.embeddings.create({ model: 'e', input: 'x' }, { signal: controller.signal }).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(server.embeddingCalls).toBe(2));
    controller.abort();
    expect(await hanging).toBeInstanceOf(APIUserAbortError);
  });

  it('rejects an embeddings body without input', async () => {
    const error: unknown = await client.embeddings.create({ model: 'm' } as unknown as OpenAI.EmbeddingCreateParams).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, param: 'input' });
  });

  it('lists the offline model', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toMatchObject([{ id: 'troupe-offline', object: 'model', owned_by: 'troupe' }]);
  });
});

describe('the server itself', () => {
  it('records every request it receives', async () => {
    server.script({ text: 'one' });
    await client.chat.completions.create(hi);
    await client.embeddings.create({ model: 'e', input: 'x' });
    await fetch(`${server.baseURL}/nowhere`);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /v1/embeddings',
      'GET /v1/nowhere',
    ]);
    expect(server.requests[0]?.body).toMatchObject(hi);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
    expect(typeof server.requests[0]?.at).toBe('number');
  });

  it('keeps only the latest keepRequests requests, while counting every chat call and numbering its ids on', async () => {
    const bounded = await startOpenAICompatibleServer({ keepRequests: 2 });
    try {
      const boundedClient = new OpenAI({ apiKey: 'test', baseURL: bounded.baseURL, maxRetries: 0 });
      const ids: string[] = [];
      for (const content of ['a', 'b', 'c']) {
        const completion = await boundedClient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] });
        ids.push(completion.id);
      }
      await boundedClient.embeddings.create({ model: 'e', input: 'x' });
      expect(bounded.chatCalls).toBe(3);
      expect(bounded.chatRequests.map((request) => request.messages[0]?.content)).toEqual(['b', 'c']);
      expect(bounded.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/embeddings']);
      expect(new Set(ids).size).toBe(3);
    } finally {
      await bounded.close();
    }
    await expect(startOpenAICompatibleServer({ keepRequests: -1 })).rejects.toThrow(/keepRequests/);
    await expect(startOpenAICompatibleServer({ keepRequests: Number.NaN })).rejects.toThrow(/keepRequests/);
  });

  it('closes promptly with a hanging request pending', async () => {
    server.script({ hang: true });
    const pending = client.chat.completions.create(hi).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(server.chatRequests).toHaveLength(1));
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(APIConnectionError);
    await server.close(); // idempotent
  });
});
