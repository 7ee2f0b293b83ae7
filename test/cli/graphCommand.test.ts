import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { ScriptedModel, SimulatedClock } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';

// `troupe graph` run as a child process on a data dir a real runtime wrote: a program gave root's
// graph a plan, a worker a note (then the worker was terminated) and the society's graph a note,
// on a simulated clock, then the runtime shut down. Times print in local time: the zone is pinned.

const env = { TZ: 'UTC' };
let base: string;
let dir: string;
let worker: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-graph-cli-'));
  dir = join(base, 'org');
  const clock = new SimulatedClock(Date.UTC(2025, 0, 2, 9, 30));
  const rt = await createRuntime({ dataDir: dir, model: new ScriptedModel([]), clock });
  const graph = await rt.graphMemory('root');
  await graph.addEvent({ id: 'launch', content: 'Launch the site', priority: 2 });
  clock.advance(1_000);
  await graph.addEvent({ id: 'venue', content: 'Book the venue' });
  clock.advance(1_000);
  await graph.addNote({ id: 'pricing', content: 'Venue A costs sk-cli-secret-42 a day.', title: 'Pricing', tags: ['venue'] });
  clock.advance(1_000);
  await graph.addEvent({ id: 'old', content: 'An abandoned plan', status: 'archived' });
  await graph.link({ from: 'launch', to: 'venue', type: 'depends_on' });
  await graph.link({ from: 'venue', to: 'pricing', type: 'references', weight: 3 });
  await rt.createRole({ name: 'worker', prompt: 'You work.' });
  worker = await rt.spawn({ role: 'worker' });
  await (await rt.graphMemory(worker)).addNote({ id: 'found', content: 'Found two venues.' });
  await rt.terminate(worker, { by: 'user' });
  await (await rt.graphMemory('society')).addNote({ id: 'style', content: 'Write in plain English.' });
  await rt.shutdown();
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// Each case starts `troupe` from source in its own process: seconds each on a loaded machine.
const slow = { timeout: 120_000 };

describe('troupe graph', () => {
  it("lists an agent's newest nodes as a table, archived events only with --archived", slow, async () => {
    const result = await runCli(['graph', 'root', '--data-dir', dir], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        `root's graph in ${dir} · 4 nodes · 2 edges · newest first`,
        '  pricing    note   #venue         2025-01-02 09:30:02  Pricing: Venue A costs sk-cli-secret-42 a day.',
        '  venue      event  pending        2025-01-02 09:30:01  Book the venue',
        '  launch     event  pending p2     2025-01-02 09:30:00  Launch the site',
        '',
      ].join('\n'),
    );
    const archived = await runCli(['graph', 'root', '--archived', '--limit', '1', '--data-dir', dir], env);
    expect(archived.stdout.split('\n').slice(1, 3)).toEqual([
      '  old        event  archived       2025-01-02 09:30:03  An abandoned plan',
      '  … 3 more (--limit)',
    ]);
  });

  it("prints a node's neighbourhood with its edges' types as JSON lines, redacting what the environment calls secret", slow, async () => {
    const result = await runCli(['graph', 'root', 'launch', '--depth', '2', '--json', '--data-dir', dir], { ...env, TROUPE_SECRETS: 'sk-cli-secret-42' });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { node?: { id: string; content: string }; distance?: number; edge?: { from: string; type: string; to: string } });
    expect(lines.filter((line) => line.node !== undefined).map((line) => [line.node?.id, line.distance])).toEqual([
      ['launch', 0],
      ['venue', 1],
      ['pricing', 2],
    ]);
    expect(lines.find((line) => line.node?.id === 'pricing')?.node?.content).toBe('Venue A costs [REDACTED] a day.');
    expect(lines.filter((line) => line.edge !== undefined).map(({ edge }) => `${edge?.from} ${edge?.type} ${edge?.to}`)).toEqual([
      'launch depends_on venue',
      'venue references pricing',
    ]);
  });

  it("reads a terminated agent's graph and the society's", slow, async () => {
    const terminated = await runCli(['graph', worker, 'found', '--depth', '0', '--data-dir', dir], env);
    expect([terminated.code, terminated.stdout.split('\n')[1]]).toEqual([0, '  0  found      note                  2025-01-02 09:30:03  Found two venues.']);
    const society = await runCli(['graph', 'society', '--json', '--data-dir', dir], env);
    expect(JSON.parse(society.stdout)).toMatchObject({ node: { id: 'style', content: 'Write in plain English.' }, distance: null });
  });

  it.each([
    [['root', '--depth', '2'], /^troupe: --depth: is how many links from nodeId to follow: give nodeId too/],
    [['root', 'launch', '--depth', '11'], /^troupe: --depth: Too big: expected number to be <=10/],
    [['root', 'no such'], /^troupe: <nodeId>: /],
    [['root', 'ghost'], /^troupe: no node with id ghost/],
    [['nobody'], /^troupe: no agent nobody in /],
  ])('refuses %j with exit 2, naming what is wrong', slow, async (args, message) => {
    const result = await runCli(['graph', ...args, '--data-dir', dir], env);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toMatch(message);
  });
});
