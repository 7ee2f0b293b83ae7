import { mkdir } from 'node:fs/promises';
import { type Browser, type Page, chromium } from 'playwright-core';
import { describe, inject } from 'vitest';
import { chromiumPath } from './chromiumPath.js';

/**
 * A `describe` of tests that drive a real headless Chromium: skipped where it is not installed
 * (the global setup, `optionalDependencies.ts`, says so once a run, and fails the run instead
 * where CI requires it).
 */
export function describeWithChromium(name: string, tests: () => void): void {
  describe.skipIf(!inject('chromiumPresent'))(name, tests);
}

/** Debian's Chromium, headless, through playwright-core (whose own browser download is not used). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true });
}

/** Where screenshots go (gitignored): kept after the run, to look at what the browser showed. */
const artifactsDir = new URL('../../test-artifacts/', import.meta.url);

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(artifactsDir, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, artifactsDir).pathname, fullPage: true });
}

/**
 * What went wrong in the page: uncaught exceptions, console errors, HTTP replies of 400 or more
 * and requests that failed, except those `expected` matches. The browser's own console line for a
 * failed load is left to the reply or failure it repeats, which say which URL; a request the page
 * itself aborted is none.
 */
export function pageErrors(page: Page): { readonly errors: string[]; expected: RegExp | null } {
  const seen = { errors: [] as string[], expected: null as RegExp | null };
  const record = (error: string): void => {
    if (seen.expected?.test(error) !== true) seen.errors.push(error);
  };
  page.on('pageerror', (error) => seen.errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) seen.errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) record(`http ${String(response.status())} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    // Aborted: the page let go of it (a reload ends the event stream), which is no failure.
    if (reason !== 'net::ERR_ABORTED') record(`failed ${request.url()}: ${reason}`);
  });
  return seen;
}
