import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAICompatibleServer, type ServerStep, startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';

// `troupe run` against a model set up wrong, or misbehaving, through the real CLI in a child
// process and the local OpenAI-compatible server over loopback.

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const setupHint = 'troupe: the model is not set up right: check OPENAI_BASE_URL, OPENAI_API_KEY and TROUPE_MODEL';

async function runAgainst(step: ServerStep, bare = false): Promise<{ code: number | null; stdout: string; stderr: string; baseURL: string }> {
  server = await startOpenAICompatibleServer();
  server.script(step);
  const baseURL = bare ? server.baseURL.replace(/\/v1$/, '') : server.baseURL;
  const result = await runCli(['run', 'write a haiku about rain', '--no-status', '--memory'], { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test' });
  return { ...result, baseURL };
}

describe('troupe run on a model set up wrong', () => {
  it('exits 2 on a refused key (401), naming the URL, the status and what to check', async () => {
    const result = await runAgainst({ status: 401, message: 'Incorrect API key provided.' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain(
      `failed: model openai:gpt-4o-mini at ${result.baseURL} failed: HTTP 401 invalid_request_error: Incorrect API key provided.; the server refused the API key`,
    );
    expect(result.stderr).toContain(setupHint);
  });

  it('exits 2 on a base URL without /v1 (404), suggesting the URL with /v1', async () => {
    const result = await runAgainst({ text: 'never asked for' }, true);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain(`at ${result.baseURL} failed: HTTP 404`);
    expect(result.stdout).toContain(`try ${result.baseURL}/v1`);
  });

  it('exits 2 on a 200 text/html page where a stream was asked for, naming the content type', async () => {
    const result = await runAgainst({ raw: { contentType: 'text/html', body: '<!doctype html><title>a web UI</title>' } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('the server answered 200 with content-type text/html where an event stream (text/event-stream) was asked for');
    expect(result.stdout).not.toMatch(/root → user\s+execute \[completed\]/);
  });

  it('exits 2 on an unreachable endpoint once its retries are spent, naming the URL and ECONNREFUSED', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise((resolve) => probe.close(resolve));
    const baseURL = `http://127.0.0.1:${port}/v1`;
    // Three retries, 1 + 2 + 4 s apart: this test takes 7 s at the least.
    const result = await runCli(['run', 'write a haiku about rain', '--no-status', '--memory'], { OPENAI_BASE_URL: baseURL });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain(`model openai:gpt-4o-mini at ${baseURL} failed: connection failed: ECONNREFUSED`);
    expect(result.stdout).toContain('is the server running, and is this its address?');
    expect(result.stderr.match(/model call failed; retrying/g)).toHaveLength(3);
  }, 60_000);

  it('exits 1, not 2, on a model error that is no setup problem (400)', async () => {
    const result = await runAgainst({ status: 400, message: 'This model does not support tools.' });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('HTTP 400 invalid_request_error: This model does not support tools.');
    expect(result.stderr).not.toContain(setupHint);
  });
});
