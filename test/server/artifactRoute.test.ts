import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing.js';
import { png, renderSteps, renderTool, report } from '../support/artifactSociety.js';
import { type MessagesBody, answered, call, serverPerTest } from '../support/httpServerFixture.js';
import type { ArtifactRef } from '../../src/org/index.js';

// GET /api/artifacts/:id and the artifacts of GET /api/messages/:taskId, over real HTTP on loopback.

const served = serverPerTest();

interface ErrorBody {
  readonly error: { code: string; message: string; field: string | null };
}

async function rendering(memory: boolean) {
  const server = await served({ memory, model: new ScriptedModel(renderSteps()), runtime: { tools: [renderTool()] } });
  const submitted = await call<{ taskId: string }>(server.url, '/api/submit', { json: { text: 'render the report' } });
  const taskId = submitted.body.taskId;
  await answered(server.rt, taskId);
  return { ...server, taskId };
}

describe('artifacts over HTTP', () => {
  for (const memory of [false, true]) {
    it(`are listed with a session's messages and fetched with their media type and length (${memory ? 'memory only' : 'data dir'})`, async () => {
      const { url, taskId } = await rendering(memory);
      const messages = await call<MessagesBody & { artifacts: ArtifactRef[] }>(url, `/api/messages/${taskId}`);
      expect(messages.status).toBe(200);
      const [text, image] = messages.body.artifacts;
      expect(messages.body.artifacts.map(({ name, mediaType, size, taskId: owner }) => [name, mediaType, size, owner])).toEqual([
        ['report.txt', 'text/plain', report.length, taskId],
        ['chart.png', 'image/png', 8, taskId],
      ]);

      const fetchedText = await fetch(`${url}/api/artifacts/${text?.id ?? ''}`);
      expect(fetchedText.status).toBe(200);
      expect(fetchedText.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(fetchedText.headers.get('content-length')).toBe(String(report.length));
      expect(await fetchedText.text()).toBe(report);

      const fetchedImage = await fetch(`${url}/api/artifacts/${image?.id ?? ''}`);
      expect(fetchedImage.headers.get('content-type')).toBe('image/png');
      expect(fetchedImage.headers.get('content-length')).toBe('8');
      expect(fetchedImage.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''chart.png");
      expect(new Uint8Array(await fetchedImage.arrayBuffer())).toEqual(png);
    });
  }

  it('answers an unknown id with a 404 in the house error shape, and a malformed one with a 400', async () => {
    const { url } = await rendering(false);
    const unknown = await call<ErrorBody>(url, `/api/artifacts/${'0'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'unknown_artifact', message: `no artifact "${'0'.repeat(32)}" (never stored, or evicted)`, field: 'id' } });
    const malformed = await call<ErrorBody>(url, '/api/artifacts/nope');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_input', field: 'id' });
  });

  it('is described in the OpenAPI document', async () => {
    const { url } = await served({ memory: true });
    const document = await call<{ paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> }>(url, '/openapi.json');
    const operation = document.body.paths['/api/artifacts/{id}']?.['get'];
    expect(operation?.operationId).toBe('getArtifact');
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '400', '401', '404']);
  });
});
