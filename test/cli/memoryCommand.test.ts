import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';
import { type RememberingSociety, rememberedFacts, rememberingSociety } from '../support/rememberingSociety.js';

// `troupe memory` run as a child process on a data dir a real runtime wrote: its model (the
// `openai` package against the local OpenAI-compatible server) gave root and a keeper things to
// remember, then the runtime shut down. Times print in local time: the zone is pinned.

const env = { TZ: 'UTC' };
let base: string;
let dir: string;
let society: Omit<RememberingSociety, 'rt'>;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-memory-cli-'));
  dir = join(base, 'org');
  const server = await startOpenAICompatibleServer();
  try {
    const { rt, ...made } = await rememberingSociety(server, { dataDir: dir });
    society = made;
    await rt.shutdown();
  } finally {
    await server.close();
  }
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// Each case starts `troupe` from source in its own process: seconds each on a loaded machine.
const slow = { timeout: 120_000 };

describe('troupe memory', () => {
  it('prints every tier as a table: counts, then each entry on a line', slow, async () => {
    const result = await runCli(['memory', 'root', '--data-dir', dir], env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`root in ${dir} · L1 5 · L2 0 · L3 0 · L4 2`);
    expect(lines.filter((line) => !line.startsWith('  '))).toEqual([lines[0], 'L1 (5)', 'L2 (0)', 'L3 (0)', 'L4 (2)']);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\d\d:\d\d:\d\d\.\d{3} {2}user → root {12}execute {2}imp 0\.70 {2}write a haiku about rain$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}\d\d:\d\d:\d\d\.\d{3} {2}root → user {12}execute \[completed\] {2}imp 0\.50 {2}Rain on the roof$/),
    );
    expect(lines.slice(-2)).toEqual([
      `  f0     agent            imp 0.90  ${rememberedFacts.likes}`,
      `  f1     session ${society.rain.padEnd(8)} imp 0.70  ${rememberedFacts.rainSession}`,
    ]);
  });

  it("prints one session's entries of a tier as JSON lines, and pages", slow, async () => {
    const result = await runCli(['memory', 'root', '--tier', 'L1', '--session', society.rain, '--json', '--data-dir', dir], env);
    expect(result.code, result.stderr).toBe(0);
    const entries = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { tier: string; id: string; text: string });
    expect(entries.map((entry) => [entry.tier, entry.id, entry.text])).toEqual([
      ['l1', society.rain, 'write a haiku about rain'],
      ['l1', society.rain, 'Rain on the roof'],
    ]);
    const paged = await runCli(['memory', 'root', '--tier', 'l1', '--limit', '2', '--data-dir', dir], env);
    expect(paged.stdout.trimEnd().split('\n').slice(-1)).toEqual(['  … 3 more (--offset 2)']);
  });

  it("searches a terminated agent's facts with the embedder that made them, redacting what the environment calls secret", slow, async () => {
    const result = await runCli(['memory', society.keeper, '--search', 'what is the door code?', '--k', '3', '--json', '--data-dir', dir], {
      ...env,
      TROUPE_SECRETS: 'door code',
    });
    expect(result.code, result.stderr).toBe(0);
    const [hit, ...more] = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; text: string; similarity: number });
    expect(more).toEqual([]);
    expect(hit).toMatchObject({ id: 'f0', text: 'The [REDACTED] is 1234.' });
    expect(hit?.similarity).toBeGreaterThan(0.3);
    expect(result.stdout).not.toContain('door code');
  });

  it.each([
    [['--k', '3'], /^troupe: --k: is how many facts a search returns: give search too/],
    [['--search', 'rain', '--tier', 'l2'], /^troupe: --tier: is l2, but search looks through L4 facts/],
    [['--tier', 'l9'], /--tier must be l1, l2, l3 or l4, got "l9"/],
    [['--limit', '501'], /^troupe: --limit: Too big: expected number to be <=500/],
    [['--session', 'not a session'], /^troupe: --session: /],
  ])('refuses %j with exit 2, naming the flag', slow, async (args, message) => {
    const result = await runCli(['memory', 'root', ...args, '--data-dir', dir], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('refuses an agent the data dir does not have, and a dir with no organisation, with exit 2', slow, async () => {
    const unknown = await runCli(['memory', 'nobody', '--data-dir', dir], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, `troupe: no agent nobody in ${dir}\n`]);
    const empty = await runCli(['memory', 'root', '--data-dir', join(base, 'nothing')], env);
    expect([empty.code, empty.stderr]).toEqual([2, `troupe: no organisation at ${join(base, 'nothing')} (nothing has run there yet)\n`]);
  });
});
