import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/server/index.js';
import { ScriptedModel } from '../../src/testing.js';
import type { Approval } from '../../src/task/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { type Served, answered, call, serve } from '../support/httpServerFixture.js';
import { mailTool } from '../support/mailTool.js';
import { type Scrape, readScrape } from '../support/prometheusText.js';
import { until } from '../support/runtimeFixture.js';

// GET /metrics over real HTTP on loopback, on an org store in a temp dir: one server for the file,
// its scrapes compared before and after the society works.

const token = 'metrics-test-token';
const { tool: sendEmail } = mailTool();
// Named as a provider's model is (`provider:model`); its first reply reports its token usage, as a provider's last chunk does.
const model = new ScriptedModel(
  [
    {
      chunks: [
        { type: 'text', text: 'a haiku' },
        { type: 'finish', reason: 'stop', usage: { promptTokens: 12, completionTokens: 3 } },
      ],
    },
    { toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] },
    { text: 'sent' },
    { hang: true },
  ],
  { name: 'local:tiny-model' },
);
let served: Served;
beforeAll(async () => {
  served = await serve({ model, runtime: { tools: [sendEmail] }, server: { token } });
});
afterAll(() => served.close());

async function scrape(): Promise<Scrape> {
  const response = await fetch(`${served.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return readScrape(await response.text());
}

const submit = async (text: string): Promise<string> => (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text }, token })).body.taskId;
const chat = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'local', gen_ai_request_model: 'tiny-model' };

describe('GET /metrics', () => {
  it('is refused without the token, and with it is the Prometheus text format with every metric typed', async () => {
    expect((await call(served.url, '/metrics')).status).toBe(401);
    expect((await call(served.url, '/metrics', { token: 'wrong' })).status).toBe(401);
    // A second server on the same runtime keeps a registry of its own: no name is registered twice.
    const second = createHttpServer(served.rt, { token });
    const injected = await second.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    await second.close();
    expect(injected.statusCode).toBe(200);
    expect(readScrape(injected.body).value('troupe_http_requests_total')).toBe(0);
    const { types } = await scrape();
    expect(Object.fromEntries(types)).toEqual({
      gen_ai_client_operation_duration_seconds: 'HISTOGRAM',
      gen_ai_client_token_usage: 'HISTOGRAM',
      gen_ai_client_operation_time_to_first_chunk_seconds: 'HISTOGRAM',
      troupe_store_commit_duration_seconds: 'HISTOGRAM',
      troupe_agents: 'GAUGE',
      troupe_mailbox_tasks: 'GAUGE',
      troupe_mailbox_max_tasks: 'GAUGE',
      troupe_active_lanes: 'GAUGE',
      troupe_model_calls_in_flight: 'GAUGE',
      troupe_model_calls_queued: 'GAUGE',
      troupe_approvals_pending: 'GAUGE',
      troupe_memories_open: 'GAUGE',
      troupe_memory_entries: 'GAUGE',
      troupe_graphs_open: 'GAUGE',
      troupe_graph_nodes: 'GAUGE',
      troupe_graph_edges: 'GAUGE',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
      troupe_sse_clients: 'GAUGE',
      troupe_http_requests_total: 'COUNTER',
      troupe_http_request_duration_seconds: 'HISTOGRAM',
    });
  });

  it('moves as the society works: model calls and their tokens, commits, memory, requests', async () => {
    const before = await scrape();
    await answered(served.rt, await submit('write a haiku'));
    const after = await scrape();
    const count = 'gen_ai_client_operation_duration_seconds_count';
    expect(after.value(count, chat) - before.value(count, chat)).toBe(1);
    expect(after.value('gen_ai_client_operation_time_to_first_chunk_seconds_count', chat)).toBe(1);
    expect(after.value('gen_ai_client_token_usage_sum', { ...chat, gen_ai_token_type: 'input' })).toBe(12);
    expect(after.value('gen_ai_client_token_usage_sum', { ...chat, gen_ai_token_type: 'output' })).toBe(3);
    expect(after.value('troupe_store_commit_duration_seconds_count')).toBeGreaterThan(before.value('troupe_store_commit_duration_seconds_count'));
    expect(after.value('troupe_memory_entries', { tier: 'l1' })).toBeGreaterThan(before.value('troupe_memory_entries', { tier: 'l1' }));
    expect(after.value('troupe_graph_nodes')).toBeGreaterThan(0);
    expect(after.value('troupe_http_requests_total', { method: 'POST', route: '/api/submit', status: '201' })).toBe(1);
    expect(after.value('troupe_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(2);
    expect(after.value('troupe_agents', { state: 'running.idle' })).toBe(1);
  });

  it('shows a call waiting for approval, its lane, an event stream, then a model call in flight', async () => {
    const stream = await EventStreamClient.open(served.url, '/api/events', token);
    try {
      const taskId = await submit('mail ana');
      // The approval is kept before the agent's lane pauses on it.
      await until(() => served.rt.gauges().agents['running.awaitingApproval'] === 1, 'a lane paused for approval');
      const waiting = await scrape();
      expect(waiting.value('troupe_approvals_pending')).toBe(1);
      expect(waiting.value('troupe_agents', { state: 'running.awaitingApproval' })).toBe(1);
      expect(waiting.value('troupe_active_lanes')).toBe(1);
      expect(waiting.value('troupe_sse_clients')).toBe(1);
      const [approval] = served.rt.approvals() as [Approval];
      await served.rt.decide(approval.id, { action: 'approve', digest: approval.digest });
      await answered(served.rt, taskId);
      expect((await scrape()).value('troupe_approvals_pending')).toBe(0);
    } finally {
      stream.close();
    }
    // The script's last step hangs until the shutdown aborts it.
    await submit('think forever');
    await until(() => served.rt.gauges().modelCalls.running === 1, 'a model call in flight');
    const thinking = await scrape();
    expect(thinking.value('troupe_model_calls_in_flight')).toBe(1);
    expect(thinking.value('troupe_agents', { state: 'running.turn.thinking' })).toBe(1);
  });

  it('folds every path no route knows into one label, and a route with ids into its pattern', async () => {
    for (let i = 0; i < 20; i++) await call(served.url, `/made-up/${i}?q=${i}`, { token });
    for (let i = 0; i < 5; i++) await call(served.url, `/api/agents/nobody-${i}`, { token });
    await fetch(`${served.url}/made-up`, { method: 'PROPFIND', headers: { authorization: `Bearer ${token}` } });
    const after = await scrape();
    expect(after.value('troupe_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(20);
    expect(after.value('troupe_http_requests_total', { method: 'other', route: 'unmatched' })).toBe(1);
    expect(after.value('troupe_http_requests_total', { route: '/api/agents/:id', status: '404' })).toBe(5);
    // The event stream is counted once the server has seen it end, which the client's close does not wait for.
    const routes = new Set(after.labelSets('troupe_http_requests_total').map((labels) => labels['route']));
    routes.delete('/api/events');
    expect([...routes].sort()).toEqual(['/api/agents/:id', '/api/submit', '/metrics', 'unmatched']);
  });
});
