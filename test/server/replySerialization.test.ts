import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responseSchema } from '../../src/server/responseSchema.js';
import { AgentsReplySchema } from '../../src/server/schemas.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

describe('replies written by the serializer compiled from their schema', () => {
  // The serializer leaves no other trace on the wire than this: the speed is the bench's to show.
  it('GET /api/agents written from the runtime views holds exactly the fields its schema names', async () => {
    const served = await serve();
    const reply = await call(served.url, '/api/agents');
    expect(reply.status).toBe(200);
    const strict = AgentsReplySchema.extend({ agents: z.array(AgentsReplySchema.shape.agents.element.strict()) }).strict();
    const body = strict.parse(reply.body);
    expect(body.agents.map((agent) => agent.roleName)).toEqual(['root']);
    // The runtime's views carry more (usage …): the serializer leaves it out.
    expect(JSON.stringify(reply.body)).not.toContain('usage');
    const one = await call(served.url, '/api/agents/root');
    expect(AgentsReplySchema.shape.agents.element.strict().parse(one.body)).toMatchObject({ id: 'root', status: 'active' });
  });

  it('a nullable field becomes a type list, which fast-json-stringify writes without testing branches', () => {
    const schema = responseSchema(z.object({ at: z.number().int().nullable(), name: z.string() }));
    expect(schema['properties']).toMatchObject({ at: { type: ['integer', 'null'] }, name: { type: 'string' } });
    expect(JSON.stringify(schema)).not.toContain('anyOf');
  });
});
