import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import createClient from 'openapi-fetch';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { JsonValue } from '../../src/task/index.js';
import { answered, call, serverPerTest } from '../support/httpServerFixture.js';
import type { components, paths } from '../support/openapi.generated.js';
import { generateOpenApiTypes, generatedTypesPath } from '../support/openapiClientTypes.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId?: string; parameters: { name: string; schema: Record<string, unknown> }[]; requestBody?: unknown }>>;
};

async function servedDocument(url: string): Promise<Document> {
  return (await call<Document>(url, '/openapi.json')).body;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, with servers and one operationId per route', async () => {
    const served = await serve({ memory: true });
    const document = await servedDocument(served.url);
    const result = await validate(structuredClone(document) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(operations.length);
  });

  it('says what the server accepts: integer query parameters with their bounds, no whitespace-only text', async () => {
    const served = await serve({ memory: true });
    const document = await servedDocument(served.url);
    const limit = document.paths['/api/agents']?.['get']?.parameters.find((parameter) => parameter.name === 'limit');
    expect(limit?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect((await call(served.url, '/api/agents?limit=0')).status).toBe(400);
    expect((await call(served.url, '/api/agents?limit=1000')).status).toBe(200);
    expect((await call(served.url, '/api/agents?offset=999999999')).status).toBe(200);
    const offset = document.paths['/api/messages/{taskId}']?.['get']?.parameters.find((parameter) => parameter.name === 'offset');
    expect(offset?.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 999_999_999 });
    const text = JSON.stringify(document.paths['/api/submit']?.['post']?.requestBody);
    expect(text).toContain('"pattern":"\\\\S"');
    expect(new RegExp('\\S').test(' \t\n')).toBe(false);
    expect((await call(served.url, '/api/submit', { method: 'POST', json: { text: ' \t\n' } })).status).toBe(400);
  });

  it('the client types generated from it are up to date, and keep a Task result typed as JSON', async () => {
    expect(await readFile(generatedTypesPath, 'utf8'), 'run `npx tsx scripts/openapiTypes.ts`').toBe(await generateOpenApiTypes());
    expectTypeOf<components['schemas']['Task']['result']>().toEqualTypeOf<components['schemas']['JsonValue'] | null>();
    expectTypeOf<JsonValue>().toExtend<components['schemas']['JsonValue']>();
  });

  it('a client generated from it calls the live server over loopback', async () => {
    const served = await serve({ server: { token: 'client-token' } });
    const client = createClient<paths>({ baseUrl: served.url, headers: { authorization: 'Bearer client-token' } });
    const submitted = await client.POST('/api/submit', { body: { text: 'write a haiku about rain' } });
    expect(submitted.response.status).toBe(201);
    const taskId = submitted.data?.taskId ?? '';
    const expected = await answered(served.rt, taskId);
    const messages = await client.GET('/api/messages/{taskId}', { params: { path: { taskId }, query: { limit: 1000, scope: 'user' } } });
    const answer = messages.data?.messages.find((task) => task.id === expected.id && task.status === expected.status);
    expect(answer?.result).toEqual(expected.result);
    expectTypeOf(answer?.result).toEqualTypeOf<components['schemas']['JsonValue'] | null | undefined>();

    const agents = await client.GET('/api/agents', { params: { query: { limit: 1, status: 'active' } } });
    expect(agents.data?.agents).toHaveLength(1);
    const root = await client.GET('/api/agents/{id}', { params: { path: { id: agents.data?.agents[0]?.id ?? '' } } });
    expect(root.data?.status).toBe('active');
    expect((await client.GET('/api/roles')).data?.roles.length).toBeGreaterThan(0);
    const memory = await client.GET('/api/agents/{id}/memory', { params: { path: { id: 'root' }, query: { tier: 'l1', sessionId: taskId, limit: 10 } } });
    expect(memory.data?.entries.map((entry) => entry.text)).toContain('write a haiku about rain');
    expect(memory.data?.counts.l1).toBe(memory.data?.total);
    expect((await client.GET('/health')).data).toEqual({ status: 'ok' });
    expect((await client.GET('/ready')).data).toMatchObject({ ready: true });

    const refused = await client.GET('/api/agents', { params: { query: { limit: 0 } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.field).toBe('limit');
  });
});
