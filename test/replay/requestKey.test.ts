import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../../src/llm/index.js';
import { RequestKeys } from '../../src/replay/requestKey.js';
import { Redactor } from '../../src/task/index.js';

/** A request's digest as recordings define it: the SHA-256 of its model, its tools' digest and its messages (each made canonical afresh), one a line. */
function definedDigest(request: ChatRequest): string {
  const { model, tools, messages } = new RequestKeys(new Redactor(['hunter2-configured'])).key(request, 'client');
  return createHash('sha256')
    .update(`${JSON.stringify(model)}\n${tools.digest}\n${messages.join('\n')}`)
    .digest('hex');
}

describe('the key of a model request', () => {
  it('has the digest of the whole request, however much of it an earlier request of a turn hashed already', () => {
    const keys = new RequestKeys(new Redactor(['hunter2-configured']));
    const [system, ask, reply, result, other] = ['be brief', 'hello', 'calling', 'the key is hunter2-configured', 'elsewhere'].map((content): ChatMessage => ({
      role: 'user',
      content,
    })) as [ChatMessage, ChatMessage, ChatMessage, ChatMessage, ChatMessage];
    const requests: ChatRequest[] = [
      // A turn: each request sends the one before's messages again, and more; one is sent twice.
      { messages: [system], tools: [] },
      { messages: [system, ask], tools: [] },
      { messages: [system, ask, reply, result], tools: [] },
      { messages: [system, ask, reply, result], tools: [] },
      { messages: [], tools: [] },
      // The same last message after another start, to another model; a request that ends earlier.
      { messages: [other, ask], tools: [] },
      { messages: [system, ask, reply, result], tools: [], model: 'another' },
      { messages: [system, ask, reply], tools: [] },
      // The system message made again for each request, alike, then not.
      { messages: [{ ...system }, ask, reply], tools: [] },
      { messages: [{ ...system, content: 'be long' }, ask, reply], tools: [] },
      { messages: [{ ...system, content: 'be long' }, { ...ask }, reply, result], tools: [] },
    ];
    for (const request of requests) expect(keys.key(request, 'client').digest).toBe(definedDigest(request));
  });
});
