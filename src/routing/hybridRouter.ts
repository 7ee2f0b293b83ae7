import type { Embedder } from '../memory/embedding/embedder.js';
import { TroupeError } from '../errors.js';
import { parseOrThrow } from '../task/index.js';
import { KeywordIndex } from './keywordIndex.js';
import type { RoutingCandidate } from './routingCandidate.js';
import type { RoutingDecision, ScoredCandidate } from './routingDecision.js';
import { type RouterOptions, RouterOptionsSchema, type RouterSettings } from './routingOptions.js';
import { SemanticIndex } from './semanticIndex.js';

/** Asked, when no candidate is good enough but some come close, to pick one of them by id, or none (null). */
export type RoutingChooser = (request: string, candidates: readonly ScoredCandidate[], signal?: AbortSignal) => Promise<string | null>;

/** What a router is built with besides its options: the embedder of the semantic score (none: keyword only) and an optional chooser. */
export interface RouterParts {
  readonly embedder?: Embedder | null;
  readonly chooser?: RoutingChooser | null;
}

/**
 * Picks the candidate a request should go to, or refuses. The keyword score (BM25 over weighted
 * fields) and the semantic score (cosine of the embedder's vectors) are each in [0, 1] and fused
 * as a weighted sum (`keywordWeight`), so one threshold means the same for every request, which
 * rank fusion (RRF) could not give: it ranks, it cannot refuse. A confident keyword match is
 * taken at once (the fast path, no embedding); below the threshold a chooser, when given, picks
 * among the closest; otherwise nothing is chosen, never an arbitrary candidate.
 *
 * @example
 * const router = await HybridRouter.build(
 *   [{ id: 'role-1', name: 'ts-reviewer', fields: { name: 'ts-reviewer', description: 'Reviews TypeScript code' } }],
 *   {},
 *   { embedder: new HashedNgramEmbedder() },
 * );
 * const decision = await router.route('someone who can review TypeScript');
 */
export class HybridRouter {
  readonly settings: RouterSettings;
  readonly #candidates: readonly RoutingCandidate[];
  readonly #keyword: KeywordIndex;
  readonly #semantic: SemanticIndex | null;
  readonly #chooser: RoutingChooser | null;

  private constructor(candidates: readonly RoutingCandidate[], settings: RouterSettings, semantic: SemanticIndex | null, chooser: RoutingChooser | null) {
    this.settings = settings;
    this.#candidates = candidates;
    this.#keyword = new KeywordIndex(candidates, (field) => settings.fieldWeights[field] ?? 1);
    this.#semantic = semantic;
    this.#chooser = chooser;
  }

  /** Indexes `candidates`; refuses bad options (naming them) and more candidates than `maxCandidates`. */
  static async build(candidates: readonly RoutingCandidate[], options: RouterOptions = {}, parts: RouterParts = {}): Promise<HybridRouter> {
    const settings = parseOrThrow(RouterOptionsSchema, options, 'router');
    if (candidates.length > settings.maxCandidates) {
      throw new TroupeError(
        'invalid_input',
        `the router has ${candidates.length} candidates, more than its limit of ${settings.maxCandidates} (maxCandidates)`,
      );
    }
    const embedder = settings.mode === 'keyword' ? null : (parts.embedder ?? null);
    if (settings.mode === 'semantic' && embedder === null) throw new TroupeError('invalid_input', 'router: mode "semantic" needs an embedder');
    const semantic =
      embedder === null
        ? null
        : await SemanticIndex.build(
            embedder,
            candidates.map((candidate) => semanticText(candidate, settings)),
          );
    return new HybridRouter(candidates, settings, semantic, parts.chooser ?? null);
  }

  get size(): number {
    return this.#candidates.length;
  }

  /** The decision for `request`; refuses (`invalid_input`) a request longer than `maxRequestChars`. */
  async route(request: string, signal?: AbortSignal): Promise<RoutingDecision> {
    const { settings } = this;
    if (request.length > settings.maxRequestChars) {
      throw new TroupeError(
        'invalid_input',
        `a routing request has at most ${settings.maxRequestChars} characters (maxRequestChars); this one has ${request.length}`,
      );
    }
    const keyword = settings.mode === 'semantic' ? new Float64Array(this.size) : this.#keyword.scores(request);
    if (settings.mode === 'hybrid' && settings.fastPath !== null) {
      const [best, next] = bestTwo(keyword);
      const margin = (keyword[best] ?? 0) - (next === -1 ? 0 : (keyword[next] ?? 0));
      if (best !== -1 && (keyword[best] ?? 0) >= settings.fastPath.score && margin >= settings.fastPath.margin) {
        return this.#decide(request, 'keyword', keyword, null, keyword, best, settings.fastPath.score, 'a confident keyword match');
      }
    }
    const semantic = this.#semantic === null ? null : await this.#semantic.scores(request, signal);
    const fused = this.#fuse(keyword, semantic);
    const method = settings.mode === 'semantic' ? 'semantic' : settings.mode === 'keyword' || semantic === null ? 'keyword' : 'hybrid';
    const [best] = bestTwo(fused);
    const top = best === -1 ? 0 : (fused[best] ?? 0);
    if (best !== -1 && top >= settings.threshold)
      return this.#decide(request, method, keyword, semantic, fused, best, settings.threshold, `the best ${method} score`);
    const decision = this.#decide(request, 'none', keyword, semantic, fused, -1, settings.threshold, '');
    if (this.#chooser !== null && best !== -1 && top >= settings.modelChoice.floor) {
      const shortlist = ranked(this.#candidates, keyword, semantic, fused, settings.modelChoice.candidates);
      const pick = await this.#chooser(request, shortlist, signal);
      const chosen = pick === null ? undefined : shortlist.find((candidate) => candidate.id === pick);
      if (chosen !== undefined) {
        return {
          ...decision,
          method: 'model',
          chosen: { id: chosen.id, name: chosen.name },
          score: chosen.score,
          reason: `the model chose ${chosen.name} among the ${shortlist.length} closest`,
        };
      }
      return { ...decision, reason: `no candidate reached ${settings.threshold}, and the model chose none of the ${shortlist.length} closest` };
    }
    return decision;
  }

  #fuse(keyword: Float64Array, semantic: Float64Array | null): Float64Array {
    const { mode, keywordWeight } = this.settings;
    if (semantic === null || mode === 'keyword') return keyword;
    if (mode === 'semantic') return semantic;
    const fused = new Float64Array(keyword.length);
    for (let i = 0; i < fused.length; i++) fused[i] = keywordWeight * (keyword[i] ?? 0) + (1 - keywordWeight) * (semantic[i] ?? 0);
    return fused;
  }

  #decide(
    request: string,
    method: RoutingDecision['method'],
    keyword: Float64Array,
    semantic: Float64Array | null,
    fused: Float64Array,
    chosenIndex: number,
    threshold: number,
    why: string,
  ): RoutingDecision {
    const candidates = ranked(this.#candidates, keyword, semantic, fused, this.settings.recorded);
    const chosen = this.#candidates[chosenIndex];
    const score = chosenIndex === -1 ? (candidates[0]?.score ?? 0) : (fused[chosenIndex] ?? 0);
    const reason =
      chosen === undefined
        ? candidates[0] === undefined
          ? 'there is nothing to route to'
          : `no candidate is good enough: the best, ${candidates[0].name}, scored ${round(score)}, below the threshold ${threshold}`
        : `${why}: ${chosen.name} scored ${round(score)} (threshold ${threshold})`;
    return { request, method, chosen: chosen === undefined ? null : { id: chosen.id, name: chosen.name }, score: round(score), threshold, candidates, reason };
  }
}

function semanticText(candidate: RoutingCandidate, settings: RouterSettings): string {
  const parts = settings.semanticFields.map((field) => candidate.fields[field] ?? '').filter((text) => text.trim() !== '');
  // A candidate with none of those fields is known by all it has.
  return (parts.length > 0 ? parts : Object.values(candidate.fields)).join('\n');
}

/** The indexes of the highest and the second-highest score (-1 when there is none). */
function bestTwo(scores: Float64Array): [number, number] {
  let best = -1;
  let next = -1;
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i] ?? 0;
    if (best === -1 || score > (scores[best] ?? 0)) {
      next = best;
      best = i;
    } else if (next === -1 || score > (scores[next] ?? 0)) next = i;
  }
  return [best, next];
}

/** The `count` best candidates by `scores`, best first, with every score rounded for the record. */
function ranked(
  candidates: readonly RoutingCandidate[],
  keyword: Float64Array,
  semantic: Float64Array | null,
  scores: Float64Array,
  count: number,
): ScoredCandidate[] {
  const top: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if ((scores[i] ?? 0) <= 0) continue;
    let at = top.length;
    while (at > 0 && (scores[top[at - 1] ?? 0] ?? 0) < (scores[i] ?? 0)) at--;
    if (at >= count) continue;
    top.splice(at, 0, i);
    if (top.length > count) top.pop();
  }
  return top.map((index) => ({
    id: candidates[index]?.id ?? '',
    name: candidates[index]?.name ?? '',
    keyword: round(keyword[index] ?? 0),
    semantic: semantic === null ? null : round(semantic[index] ?? 0),
    score: round(scores[index] ?? 0),
  }));
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
