import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { NotEmbeddingsError } from './embeddingReply.js';
import { NotAStreamError } from './eventStreamResponse.js';
import { networkCodeOf } from './networkCode.js';

/**
 * Failures that say the model is set up wrong rather than having a bad moment: nothing listens at
 * the address, the key is refused, the URL or model does not exist, a 200 that is no stream (or,
 * for an embeddings call, no list of embeddings).
 * The CLI exits 2 on them (fix the environment), and their messages carry a hint.
 */
export type SetupProblem = 'unreachable' | 'key_refused' | 'not_found' | 'not_a_stream';

/** Connection failures that retrying the same address will not fix. */
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_FAIL', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** The setup problem a provider's error shows, if any. */
export function setupProblemOf(provider: unknown): SetupProblem | undefined {
  if (provider instanceof NotAStreamError || provider instanceof NotEmbeddingsError) return 'not_a_stream';
  if (provider instanceof APIConnectionTimeoutError) return undefined;
  if (provider instanceof APIConnectionError) {
    const code = networkCodeOf(provider);
    return code !== undefined && (unreachableCodes.has(code) || code.includes('CERT')) ? 'unreachable' : undefined;
  }
  if (provider instanceof APIError) {
    const { status } = provider as { status: number | undefined };
    if (status === 401 || status === 403) return 'key_refused';
    if (status === 404) return 'not_found';
  }
  return undefined;
}

/** Whether the endpoint's path has a version segment (`/v1`, `/v1beta/openai`): servers that lack one usually want `/v1`. */
function hasVersion(endpoint: string): boolean {
  try {
    return /\/v\d/i.test(new URL(endpoint).pathname);
  } catch {
    return true;
  }
}

/** What to check for a setup problem at `endpoint`, as a clause to append to the failure's message. */
export function setupHint(problem: SetupProblem, endpoint: string): string {
  const missingVersion = hasVersion(endpoint) ? undefined : `OpenAI-compatible servers serve under /v1: try ${endpoint.replace(/\/+$/, '')}/v1`;
  switch (problem) {
    case 'unreachable':
      return 'is the server running, and is this its address?';
    case 'key_refused':
      return 'the server refused the API key: check the key, and that it may use this model';
    case 'not_found':
      return missingVersion ?? `is the model served there? (GET ${endpoint.replace(/\/+$/, '')}/models lists them)`;
    case 'not_a_stream':
      return missingVersion ?? 'is this the address of an OpenAI-compatible API?';
    default: {
      const never: never = problem;
      return never;
    }
  }
}
