import { describe, expect, it } from 'vitest';
import { dashboardBudgetBytes } from '../../src/server/dashboardAssets.js';
import type { MachineDefinition } from '../../src/server/index.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

// The dashboard's page and assets, and the statechart route it draws from, over real HTTP (the
// browser's view of them: test/dashboard/dashboard.browser.test.ts).

const served = serverPerTest();
const token = 'dashboard-route-token';

describe('the dashboard over HTTP', () => {
  it('serves the page and its bundle without a token, from this server only, within the budget', async () => {
    const { url } = await served({ memory: true, server: { token } });
    const page = await fetch(`${url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/ui/dashboard.js">');
    expect(html).not.toMatch(/https?:\/\//);
    const [script, style] = await Promise.all([fetch(`${url}/ui/dashboard.js`), fetch(`${url}/ui/dashboard.css`)]);
    expect([script.status, style.status]).toEqual([200, 200]);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const bytes = (await script.arrayBuffer()).byteLength + (await style.arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(1_000);
    expect(bytes).toBeLessThanOrEqual(dashboardBudgetBytes);
    // The page holds no data; the API it calls still needs the token.
    expect((await call(url, '/api/agents')).status).toBe(401);
    expect((await call(url, '/ui/other')).status).toBe(401);
  });

  it("answers the agent machine's statechart, with the states an agent's `state` names", async () => {
    const { url, rt } = await served({ memory: true, server: { token } });
    expect((await call(url, '/api/machines/agent')).status).toBe(401);
    const { status, body } = await call<MachineDefinition>(url, '/api/machines/agent', { token });
    expect(status).toBe(200);
    expect(body.machine).toBe('agent');
    expect(body.initial).toBe('spawning');
    const paths = body.states.map((state) => state.path);
    expect(paths).toEqual(expect.arrayContaining(['running', 'running.idle', 'running.turn', 'draining', 'terminated']));
    expect(paths).toContain(rt.agent('root')?.state);
    expect(body.states.find((state) => state.path === 'running')).toEqual({ path: 'running', type: 'compound', parent: null, initial: 'running.idle' });
    expect(body.transitions).toContainEqual({ source: 'running', event: 'agent.drain', targets: ['draining'], guard: null });
    for (const { targets } of body.transitions) for (const target of targets) expect(paths).toContain(target);
  });
});
