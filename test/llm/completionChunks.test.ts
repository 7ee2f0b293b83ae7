import fc from 'fast-check';
import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it, vi } from 'vitest';
import { CompletionChunks } from '../../src/llm/completionChunks.js';
import { classifyModelError } from '../../src/llm/retry.js';

// CompletionChunks reads a real web `Response` whose body yields exactly the given byte pieces,
// so every way a network can cut a stream into reads can be tried.

function responseOf(pieces: readonly Uint8Array[], end: 'close' | 'abort' | 'reset' = 'close'): Response {
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[next++];
      if (piece !== undefined) controller.enqueue(piece);
      else if (end === 'close') controller.close();
      else if (end === 'abort') controller.error(new DOMException('This operation was aborted', 'AbortError'));
      else controller.error(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' } });
}

/** Cuts `bytes` at the given offsets (any order, duplicates allowed). */
function cut(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const bounds = [...new Set([0, ...at.map((offset) => offset % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  return bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
}

async function readAll(chunks: CompletionChunks): Promise<ChatCompletionChunk[][]> {
  const batches: ChatCompletionChunk[][] = [];
  for (let batch = await chunks.next(); batch !== null; batch = await chunks.next()) batches.push(batch);
  return batches;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function chunk(content: string, index = 0): ChatCompletionChunk {
  return { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta: { content }, finish_reason: null }] };
}

describe('CompletionChunks', () => {
  it('gives the same chunks however the body is cut into reads, multi-byte characters and CRLF included', async () => {
    const texts = ['héllo', ' wörld ☂', ' 🌧️ rain', ''];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), async (offsets, crlf) => {
        const newline = crlf ? '\r\n' : '\n';
        const events = [': keep-alive comment', ...texts.map((text) => `data: ${JSON.stringify(chunk(text))}`), 'data: [DONE]'];
        const bytes = encode(events.map((line) => `${line}${newline}${newline}`).join(''));
        const batches = await readAll(new CompletionChunks(responseOf(cut(bytes, offsets))));
        expect(batches.every((batch) => batch.length > 0)).toBe(true);
        expect(batches.flat().map((each) => each.choices[0]?.delta.content)).toEqual(texts);
      }),
      { numRuns: 200 },
    );
  });

  it('hands out every chunk one read completes as one batch', async () => {
    const body = [chunk('a'), chunk('b'), chunk('c')].map((each) => `data: ${JSON.stringify(each)}\n\n`).join('');
    const batches = await readAll(new CompletionChunks(responseOf([encode(body), encode('data: [DONE]\n\n')])));
    expect(batches.map((batch) => batch.map((each) => each.choices[0]?.delta.content))).toEqual([['a', 'b', 'c']]);
  });

  it('reads the body to its end after [DONE], ignoring what follows', async () => {
    let pulled = 0;
    const pieces = [`data: ${JSON.stringify(chunk('kept'))}\n\ndata: [DONE]\n\n`, `data: ${JSON.stringify(chunk('after'))}\n\n`, 'data: not json\n\n'].map(
      encode,
    );
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces[pulled++];
        if (piece === undefined) controller.close();
        else controller.enqueue(piece);
      },
    });
    const batches = await readAll(new CompletionChunks(new Response(body)));
    expect(batches.flat().map((each) => each.choices[0]?.delta.content)).toEqual(['kept']);
    // Every piece and the end were pulled: the connection is free for the next request.
    expect(pulled).toBe(pieces.length + 1);
  });

  it('ends with what arrived when the body ends without [DONE], dropping an event cut off by the end', async () => {
    const body = `data: ${JSON.stringify(chunk('whole'))}\n\ndata: ${JSON.stringify(chunk('cut off'))}`;
    const batches = await readAll(new CompletionChunks(responseOf([encode(body)])));
    expect(batches.flat().map((each) => each.choices[0]?.delta.content)).toEqual(['whole']);
  });

  it('ends quietly when the request is aborted mid-stream, like the SDK', async () => {
    const chunks = new CompletionChunks(responseOf([encode(`data: ${JSON.stringify(chunk('first'))}\n\n`)], 'abort'));
    expect((await chunks.next())?.[0]?.choices[0]?.delta.content).toBe('first');
    expect(await chunks.next()).toBeNull();
    expect(await chunks.next()).toBeNull();
  });

  it('lets a dropped connection through as the network error it is, which the retry layer retries', async () => {
    const chunks = new CompletionChunks(responseOf([encode(`data: ${JSON.stringify(chunk('first'))}\n\n`)], 'reset'));
    await chunks.next();
    const error: unknown = await chunks.next().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(classifyModelError(error).retryable).toBe(true);
  });

  it('throws the SDK APIError for an error payload mid-stream, retryable and carrying the response headers, and closes the body', async () => {
    const error = { message: 'The server had an error while processing your request.', type: 'server_error', code: null };
    let cancelled = false;
    const pieces = [encode(`data: ${JSON.stringify(chunk('partial'))}\n\ndata: ${JSON.stringify({ error })}\n\n`)];
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        // More would follow: only closing the body ends the request.
        controller.enqueue(pieces.shift() ?? encode(': more\n\n'));
      },
      cancel: () => {
        cancelled = true;
      },
    });
    const chunks = new CompletionChunks(new Response(body, { headers: { 'x-request-id': 'req_1' } }));
    const caught: unknown = await chunks.next().catch((thrown: unknown) => thrown);
    await vi.waitFor(() => expect(cancelled).toBe(true));
    expect(await chunks.next()).toBeNull();
    expect(caught).toBeInstanceOf(APIError);
    expect(caught).toMatchObject({ status: undefined, message: error.message, type: 'server_error' });
    expect((caught as APIError).headers?.get('x-request-id')).toBe('req_1');
    expect(classifyModelError(caught).retryable).toBe(true);
  });

  it('throws APIError for an event named error, whatever its payload', async () => {
    const chunks = new CompletionChunks(responseOf([encode('event: error\ndata: {"message": "model overloaded"}\n\n')]));
    const caught: unknown = await chunks.next().catch((thrown: unknown) => thrown);
    expect(caught).toBeInstanceOf(APIError);
    expect(caught).toMatchObject({ message: 'model overloaded', status: undefined });
  });

  it('names what is wrong with an event that is not a chunk', async () => {
    const failureOf = (data: string): Promise<unknown> =>
      new CompletionChunks(responseOf([encode(`data: ${data}\n\n`)])).next().then(
        () => null,
        (error: unknown) => error,
      );
    expect(await failureOf('{"choices": [')).toMatchObject({ message: 'the model server sent a stream event that is not JSON: {"choices": [' });
    expect(await failureOf('42')).toMatchObject({ message: expect.stringContaining('not a chunk object: 42') as string });
    expect(await failureOf('{"choices": {}}')).toMatchObject({ message: expect.stringContaining('choices is not a list') as string });
  });

  it('takes a usage-only chunk without choices as a chunk with none', async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    const batches = await readAll(new CompletionChunks(responseOf([encode(`data: ${JSON.stringify({ id: 'c1', usage })}\n\n`)])));
    expect(batches.flat()).toEqual([{ id: 'c1', usage, choices: [] }]);
  });

  it('refuses an event that grows past the limit instead of buffering without end', async () => {
    const pieces = Array.from({ length: 5 }, () => encode(`data: ${'x'.repeat(100)}`));
    const caught: unknown = await new CompletionChunks(responseOf(pieces), { maxEventChars: 300 }).next().catch((error: unknown) => error);
    expect(caught).toMatchObject({ message: 'the model server sent an event longer than 300 characters' });
  });
});
