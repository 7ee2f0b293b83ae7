import { type Browser, type Page, chromium } from 'playwright-core';
import type { ModelClient } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { dashboardBudgetBytes } from '../../src/server/dashboardAssets.js';
import { createHttpServer } from '../../src/server/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { chromiumPath } from '../../test/support/chromiumPath.js';
import { sized } from './benchSize.js';
import { compare, median, percentile } from './measure.js';
import { type Row, bytes, duration, times } from './report.js';
import { silentLogger } from './silentLogger.js';

const agents = sized(1_000, 20);
/** Agents spawned under root, each the parent of an equal share of the rest: a tree two levels deep. */
const leads = sized(20, 4);
const flood = sized({ perSecond: 10, seconds: 5 }, { perSecond: 10, seconds: 0.3 });
const options = sized({ warmup: 1, rounds: 5 }, { warmup: 0, rounds: 1 });

/** Rows in the page's organisation tree: the page is drawn once every agent has one. */
const rowsDrawn = (count: number): string => `document.querySelectorAll('[data-agent-id]').length >= ${String(count)}`;

/** The dashboard from `goto` until every agent's row is in the page. */
async function firstRender(page: Page, url: string, count: number): Promise<void> {
  await page.goto(`${url}/ui`);
  await page.waitForFunction(rowsDrawn(count), undefined, { polling: 'raf', timeout: 60_000 });
}

/** The baseline: a same-origin page of nothing (`/health`) that fetches the agents' JSON and parses it, drawing nothing. */
async function rawFetch(page: Page, url: string, count: number): Promise<void> {
  await page.goto(`${url}/health`);
  const got = await page.evaluate(`fetch('/api/agents?status=active&limit=1000').then((r) => r.json()).then((body) => body.agents.length)`);
  if (got !== count) throw new Error(`the page fetched ${String(got)} agents, not ${String(count)}`);
}

/**
 * The gaps between the page's animation frames over `ms` (what a person feels as jank), in ms, and
 * how many changes the page made to its DOM meanwhile (so a quiet page is not mistaken for a fast one).
 */
async function frameGaps(page: Page, ms: number, during: () => Promise<void>): Promise<{ gaps: number[]; changes: number }> {
  // The frame loop and the observer are set up once a page; each call starts their counts afresh.
  await page.evaluate(`window.gaps = []; window.changes = 0;
    if (!window.watching) {
      window.watching = true;
      new MutationObserver((list) => (window.changes += list.length)).observe(document.body, { subtree: true, childList: true, characterData: true });
      (function frame(last) { requestAnimationFrame((now) => { window.gaps.push(now - last); frame(now); }); })(performance.now());
    }`);
  await Promise.all([during(), new Promise((resolve) => setTimeout(resolve, ms))]);
  return page.evaluate<{ gaps: number[]; changes: number }>('({ gaps: window.gaps.splice(0), changes: window.changes })');
}

/** How long the model thinks: long enough that an agent is caught in its turn, so its row changes twice a message. */
const thinkMs = 300;

/** A scripted model that answers `ok` after `thinkMs`. */
function slowModel(): ModelClient {
  const scripted = new ScriptedModel(Array.from({ length: 10_000 }, () => ({ text: 'ok' })));
  return {
    name: 'slow-scripted',
    scripted: true,
    async *chat(request, options) {
      await new Promise((resolve) => setTimeout(resolve, thinkMs));
      yield* scripted.chat(request, options);
    },
    embed: (texts) => scripted.embed(texts),
  };
}

/**
 * The dashboard's first render of a `agents`-agent organisation in headless Chromium (goal ≤ 1 s),
 * beside the same page fetching the agents' JSON without drawing it; then its frames while the
 * society works (`flood.perSecond` messages a second, each some events, every one touching an
 * agent's row) beside its frames idle; and its bundle's size against its budget.
 */
export async function dashboardSuite(): Promise<Row[]> {
  const rt = await createRuntime({ model: slowModel(), logger: silentLogger });
  const server = createHttpServer(rt);
  let browser: Browser | undefined;
  try {
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const ids: string[] = [];
    for (let i = 0; i < leads; i++) ids.push(await rt.spawn({ role: 'worker' }));
    while (ids.length < agents - 1) ids.push(await rt.spawn({ role: 'worker', parent: ids[ids.length % leads] ?? 'root' }));
    const count = rt.agents().filter((agent) => agent.status === 'active').length;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
    const page = await browser.newPage();
    const [ours, raw] = await compare({ run: () => firstRender(page, url, count) }, { run: () => rawFetch(page, url, count) }, options);
    await firstRender(page, url, count);
    const ms = flood.seconds * 1000;
    const { gaps: idle } = await frameGaps(page, ms, async () => undefined);
    const { gaps: busy, changes } = await frameGaps(page, ms, async () => {
      for (let i = 0; i < flood.perSecond * flood.seconds; i++) {
        await rt.send(ids[(i * 37) % ids.length] ?? 'root', `message ${String(i)}`);
        await new Promise((resolve) => setTimeout(resolve, 1000 / flood.perSecond));
      }
    });
    const script = (await (await fetch(`${url}/ui/dashboard.js`)).arrayBuffer()).byteLength;
    const style = (await (await fetch(`${url}/ui/dashboard.css`)).arrayBuffer()).byteLength;
    const p99 = (gaps: number[]): number => percentile(gaps, 99);
    return [
      {
        benchmark: `first render of a ${String(count)}-agent organisation (goto /ui until every row is drawn)`,
        troupe: duration(ours.medianMs),
        raw: duration(raw.medianMs),
        ratio: ours.medianMs / raw.medianMs,
        notes: `goal ≤ 1 s; baseline: a same-origin page fetching /api/agents (limit 1000) and parsing it, drawing nothing; medians of ${String(options.rounds)}`,
      },
      {
        benchmark: `frame gaps while ${String(flood.perSecond)} messages/s reach ${String(count)} agents (${String(flood.seconds)} s)`,
        troupe: `p99 ${duration(p99(busy))} · max ${duration(Math.max(...busy))}`,
        raw: `p99 ${duration(p99(idle))} (idle)`,
        ratio: p99(busy) / p99(idle),
        notes: `the same page idle beside it; ${String(changes)} DOM changes meanwhile; median gap ${duration(median(busy))} busy, ${duration(median(idle))} idle`,
      },
      {
        benchmark: 'dashboard bundle (dashboard.js + dashboard.css, minified, not compressed)',
        troupe: bytes(script + style),
        raw: bytes(dashboardBudgetBytes),
        ratio: (script + style) / dashboardBudgetBytes,
        notes: `the budget beside it (${times((script + style) / dashboardBudgetBytes)} of it); ${bytes(script)} script, ${bytes(style)} style`,
      },
    ];
  } finally {
    await browser?.close();
    await server.close();
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
}
