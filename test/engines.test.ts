import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// semver ships no types; these are the two functions used here.
const semver = require('semver') as {
  subset(range: string, superset: string): boolean;
  satisfies(version: string, range: string): boolean;
};

interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: { readonly node?: string };
}

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, LockedPackage> };

/**
 * Packages whose `engines` leave out Node versions troupe's admits, and why they run there all the
 * same. cookie 2 (fastify → light-my-request) says Node ≥ 22, but it is plain ESM that
 * light-my-request loads with require(esm): Node has that from 20.19, which is why troupe's
 * range starts there, and CI runs every test on Node 20.
 */
const runsBelowItsEngines: Readonly<Record<string, string>> = { 'node_modules/cookie': '>=22' };

describe('engines', () => {
  it("troupe's Node range is within what each of its installed dependencies declares", () => {
    const ours = manifest.engines.node;
    const narrower = Object.entries(lock.packages)
      .filter(([path, locked]) => path !== '' && locked.dev !== true && locked.engines?.node !== undefined)
      .filter(([, locked]) => !semver.subset(ours, locked.engines?.node ?? '*'))
      .map(([path, locked]) => [path, locked.engines?.node]);
    expect(Object.fromEntries(narrower)).toEqual(runsBelowItsEngines);
  });

  it('admits the Node this process runs on (CI runs Node 20)', () => {
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
  });
});
