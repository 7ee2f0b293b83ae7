import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { HybridRouter, type RoutingCandidate, RoutingDecisionSchema } from '../../src/routing/index.js';
import { routingSet } from '../../scripts/bench/routingSet.js';

const role = (name: string, description: string, prompt = `You are a ${name}.`): RoutingCandidate => ({
  id: `role-${name}`,
  name,
  fields: { name, description, prompt },
});

const roles = [
  role('ts-reviewer', 'Reviews TypeScript code and pull requests for type errors and style.'),
  role('python-debugger', 'Debugs and fixes Python scripts, tracebacks and failing tests.'),
  role('poet', 'Writes poems and haiku about any subject.'),
  role('ts-writer', 'Writes new TypeScript code and modules from a specification.'),
  role('tax-adviser', 'Explains tax returns, deductions and VAT filing.'),
  role('sql-optimiser', 'Speeds up slow PostgreSQL queries, indexes and schemas.'),
];
const embedder = new HashedNgramEmbedder();

describe('HybridRouter', () => {
  it('takes a confident keyword match on the fast path, without the semantic score', async () => {
    const router = await HybridRouter.build(roles, {}, { embedder });
    const decision = await router.route('someone who can review TypeScript pull requests');
    expect(decision.method).toBe('keyword');
    expect(decision.chosen).toEqual({ id: 'role-ts-reviewer', name: 'ts-reviewer' });
    expect(decision.candidates[0]?.semantic).toBeNull();
    expect(RoutingDecisionSchema.parse(decision)).toEqual(decision);
  });

  it('falls back on the semantic score when the words are misspelt', async () => {
    const router = await HybridRouter.build(roles, {}, { embedder });
    const request = 'a TypeScript reviewr';
    // The keyword score knows only "TypeScript", which both TypeScript roles have: no fast path.
    const keywordOnly = await (await HybridRouter.build(roles, { mode: 'keyword' }, { embedder })).route(request);
    expect(
      keywordOnly.candidates
        .slice(0, 2)
        .map((candidate) => candidate.name)
        .sort(),
    ).toEqual(['ts-reviewer', 'ts-writer']);
    const decision = await router.route(request);
    expect(decision.method).toBe('hybrid');
    expect(decision.chosen?.name).toBe('ts-reviewer');
    const [first, second] = decision.candidates;
    expect(first?.semantic).toBeGreaterThan(second?.semantic ?? 1);
  });

  it('refuses a request no candidate fits, saying why, instead of picking one', async () => {
    const router = await HybridRouter.build(roles, {}, { embedder });
    const decision = await router.route('I need someone to bake a sourdough loaf for the wedding');
    expect(decision.method).toBe('none');
    expect(decision.chosen).toBeNull();
    expect(decision.reason).toMatch(/no candidate is good enough: the best, .+, scored [\d.]+, below the threshold 0\.15/);
  });

  it('refuses below a threshold the caller raises', async () => {
    const request = 'someone who can review TypeScript';
    expect((await (await HybridRouter.build(roles, {}, { embedder })).route(request)).chosen?.name).toBe('ts-reviewer');
    const strict = await HybridRouter.build(roles, { threshold: 0.95, fastPath: null }, { embedder });
    const decision = await strict.route(request);
    expect(decision.chosen).toBeNull();
    expect(decision.candidates[0]?.name).toBe('ts-reviewer');
  });

  it('lets a chooser pick among the closest when none reaches the threshold, and refuses when it picks none', async () => {
    const seen: string[][] = [];
    const picking = await HybridRouter.build(
      roles,
      { threshold: 0.95, fastPath: null },
      {
        embedder,
        chooser: (_request, candidates) => {
          seen.push(candidates.map((candidate) => candidate.name));
          return Promise.resolve('role-ts-reviewer');
        },
      },
    );
    const chosen = await picking.route('review TypeScript');
    expect(chosen.method).toBe('model');
    expect(chosen.chosen?.name).toBe('ts-reviewer');
    expect(seen[0]).toContain('ts-reviewer');
    const declining = await HybridRouter.build(roles, { threshold: 0.95, fastPath: null }, { embedder, chooser: () => Promise.resolve(null) });
    const refused = await declining.route('review TypeScript');
    expect(refused.chosen).toBeNull();
    expect(refused.reason).toMatch(/the model chose none/);
  });

  it('routes without an embedder on the keyword score alone', async () => {
    const router = await HybridRouter.build(roles, {}, { embedder: null });
    const decision = await router.route('write a haiku poem about rain');
    expect(decision.chosen?.name).toBe('poet');
    expect(decision.candidates.every((candidate) => candidate.semantic === null)).toBe(true);
  });

  it('reads any text field given a weight: a field the router has never heard of is scored', async () => {
    const withSkills: RoutingCandidate[] = [...roles, { id: 'role-x', name: 'x', fields: { name: 'x', skills: 'kubernetes helm charts' } }];
    const router = await HybridRouter.build(withSkills, {}, { embedder });
    expect((await router.route('fix my helm charts on kubernetes')).chosen?.id).toBe('role-x');
    const ignoring = await HybridRouter.build(withSkills, { mode: 'keyword', fieldWeights: { skills: 0 } }, { embedder });
    expect((await ignoring.route('fix my helm charts on kubernetes')).chosen?.id).not.toBe('role-x');
  });

  it('refuses a request past maxRequestChars and candidates past maxCandidates, naming the limit', async () => {
    const router = await HybridRouter.build(roles, { maxRequestChars: 10 }, { embedder });
    await expect(router.route('review my TypeScript please')).rejects.toThrow(/at most 10 characters \(maxRequestChars\)/);
    await expect(HybridRouter.build(roles, { maxCandidates: 2 }, { embedder })).rejects.toThrow(/6 candidates, more than its limit of 2 \(maxCandidates\)/);
    await expect(HybridRouter.build(roles, { threshold: 2 }, { embedder })).rejects.toThrow(/router\.threshold/);
  });

  // Accuracy on a small generated set, held-out phrasings, default settings: a floor, not a benchmark.
  it('routes most held-out requests of a small generated set right and refuses those no role fits', async () => {
    const set = routingSet({ seed: 3, phrasing: 'heldout', requests: 150 });
    const router = await HybridRouter.build(set.roles, {}, { embedder });
    let right = 0;
    let refused = 0;
    for (const request of set.requests) {
      const decision = await router.route(request.text);
      if (request.expected === null) refused += decision.chosen === null ? 1 : 0;
      else right += decision.chosen?.id === request.expected ? 1 : 0;
    }
    const unfit = set.requests.filter((request) => request.expected === null).length;
    expect(right / (set.requests.length - unfit)).toBeGreaterThan(0.85);
    expect(refused / unfit).toBeGreaterThan(0.85);
  });
});
