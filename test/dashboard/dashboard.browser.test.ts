import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryLogger, ScriptedModel, type ScriptStep } from '../../src/testing.js';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { type HttpServer, createHttpServer } from '../../src/server/index.js';
import { describeWithChromium, launchChromium, pageErrors, screenshot } from '../support/browser.js';
import { call } from '../support/httpServerFixture.js';
import { mailTool } from '../support/mailTool.js';

// The dashboard in a real headless Chromium against an in-process `troupe serve` (a scripted
// model, a data dir, a token). One browser, one page and one society for the file: each test
// goes on from where the one before left the society, as a person watching it would.

const token = 'dashboard-test-token';
const mail = mailTool();

interface Society {
  readonly rt: Runtime;
  readonly server: HttpServer;
  readonly url: string;
}

let dataDir: string;
let browser: Browser | undefined;
let page: Page;
let running: Society | undefined;
let errors: ReturnType<typeof pageErrors>;

/** The society as it runs now (a restart replaces it). */
function society(): Society {
  if (running === undefined) throw new Error('no society is running');
  return running;
}

/** The society on `dataDir` (restored from it after the first), served on `port` (0: any). */
async function start(steps: readonly ScriptStep[], port = 0): Promise<Society> {
  const rt = await createRuntime({ model: new ScriptedModel(steps), logger: new MemoryLogger(), dataDir, tools: [mail.tool] });
  const server = createHttpServer(rt, { token });
  return { rt, server, url: await server.listen({ port, host: '127.0.0.1' }) };
}

async function stop({ rt, server }: Society): Promise<void> {
  await server.close();
  await rt.shutdown({ drainTimeoutMs: 0 });
}

async function submit(text: string): Promise<string> {
  const { body } = await call<{ taskId: string }>(society().url, '/api/submit', { json: { text }, token });
  return body.taskId;
}

const agentRow = (id: string) => page.locator(`[data-agent-id="${id}"] > .line`);
const spawnedOf = (role: string): string =>
  society()
    .rt.agents()
    .find((agent) => agent.roleName === role)?.id ?? `no ${role} agent`;

/** The society (a poet and a critic role; a script for a spawn, then a tool call that needs approval), and the browser. */
async function setUp(): Promise<void> {
  dataDir = await mkdtemp(join(tmpdir(), 'troupe-dashboard-'));
  running = await start([
    { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] },
    // Its usage, as a provider reports it, rides on the answer (metadata.usage) to the timeline's token column.
    {
      chunks: [
        { type: 'text', text: 'the poet is here' },
        { type: 'finish', reason: 'stop', usage: { promptTokens: 40, completionTokens: 2 } },
      ],
    },
    { toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] },
    { text: 'mail sent' },
  ]);
  await society().rt.createRole({ name: 'poet', prompt: 'You write haiku.' });
  await society().rt.createRole({ name: 'critic', prompt: 'You judge haiku.' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  errors = pageErrors(page);
}

async function tearDown(): Promise<void> {
  await browser?.close();
  if (running !== undefined) await stop(running);
  await rm(dataDir, { recursive: true, force: true });
}

describeWithChromium('the dashboard in a browser', () => {
  beforeAll(setUp);
  afterAll(tearDown);

  it('asks for the token once, then loads with no error and shows the organisation', async () => {
    // Without the token the API's 401 is the browser's to log; from the token on, nothing may be.
    errors.expected = /^http 401 /;
    await page.goto(`${society().url}/ui`);
    await page.locator('[data-field="token"]').fill(token);
    await page.locator('form.token button').click();
    await agentRow('root').waitFor();
    errors.expected = null;
    await page.locator('[data-field="connection"][data-state="live"]').waitFor();
    expect(await agentRow('root').textContent()).toContain('running.idle');
    await page.reload();
    await agentRow('root').waitFor();
    expect(await page.locator('[data-field="token"]').count()).toBe(0);
    await screenshot(page, 'dashboard-organisation');
    expect(errors.errors).toEqual([]);
  });

  it("updates when an agent is spawned, and shows the Task's timeline", async () => {
    const taskId = await submit('find me a poet');
    await society().rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
    const poet = spawnedOf('poet');
    await agentRow(poet).waitFor();
    expect(await page.locator(`[data-agent-id="root"] [data-agent-id="${poet}"]`).count()).toBe(1);
    const timeline = page.locator('[data-view="timeline"]');
    await timeline.locator('[data-kind="tool-call"]', { hasText: 'spawn_agent' }).waitFor();
    await timeline.locator('.event', { hasText: 'the poet is here' }).waitFor();
    expect(await timeline.locator('.event', { hasText: 'the poet is here' }).locator('.tokens').textContent()).toBe('42 tok');
    expect(await timeline.locator(`[data-task-id="${taskId}"]`).first().textContent()).toContain('user → root');
    await screenshot(page, 'dashboard-timeline');
    expect(errors.errors).toEqual([]);
  });

  it("shows an agent's statechart with its state lit, and its memory", async () => {
    await agentRow('root').click();
    const panel = page.locator('[data-view="agent"]');
    await panel.locator('[data-state="running.idle"].lit').waitFor();
    const lit = await Promise.all((await panel.locator('.lit').all()).map((state) => state.getAttribute('data-state')));
    expect(lit).toEqual(['running', 'running.idle']);
    await panel.getByText('L1 ').waitFor();
    await screenshot(page, 'dashboard-agent');
    expect(errors.errors).toEqual([]);
  });

  it('approves a pending tool call by clicking', async () => {
    const taskId = await submit('mail ana');
    await page.locator('[data-tab="approvals"]').click();
    const approve = page.locator('[data-approval-id] button[data-action="approve"]');
    await approve.waitFor();
    await screenshot(page, 'dashboard-approval');
    await approve.click();
    expect(await society().rt.waitForAnswer(taskId, { timeoutMs: 20_000 })).toMatchObject({ status: 'completed' });
    expect(mail.runs).toEqual(['ana@example.com']);
    await page.getByText('No tool call is waiting for approval.').waitFor();
    expect(errors.errors).toEqual([]);
  });

  it('keeps working across a server restart', async () => {
    const before = society();
    running = undefined;
    await stop(before);
    const port = Number(new URL(before.url).port);
    // While the server is away the browser logs the connections it refused; nothing else.
    errors.expected = /ERR_CONNECTION_REFUSED|^http 503 |ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET/;
    await page.locator('[data-field="connection"][data-state="reconnecting"]').waitFor();
    running = await start([{ toolCalls: [{ name: 'spawn_agent', arguments: { role: 'critic' } }] }, { text: 'a critic too' }], port);
    await page.locator('[data-field="connection"][data-state="live"]').waitFor();
    errors.expected = null;
    const taskId = await submit('find me a critic');
    await society().rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
    await agentRow(spawnedOf('critic')).waitFor();
    await agentRow(spawnedOf('poet')).waitFor();
    await page.locator('[data-tab="timeline"]').click();
    await page.locator('[data-view="timeline"] .event', { hasText: 'a critic too' }).waitFor();
    await screenshot(page, 'dashboard-after-restart');
    expect(errors.errors).toEqual([]);
  });
});
