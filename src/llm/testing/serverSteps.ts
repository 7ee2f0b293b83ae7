import type { ChatRequest } from '../messages.js';
import type { ScriptReply } from '../scriptedReply.js';

/**
 * A failure either endpoint can be scripted to answer with: an HTTP error with OpenAI's error body
 * (`retryAfter` seconds becomes a Retry-After header, `code` the body's error code), a request
 * left unanswered until the client gives up, a destroyed socket, or a raw answer (status, content
 * type and body as given: an HTML page, an empty body, JSON).
 */
export type FailureStep =
  | { readonly status: number; readonly message?: string; readonly retryAfter?: number; readonly code?: string }
  | { readonly hang: true }
  | { readonly dropConnection: true }
  | { readonly raw: RawAnswer };

/**
 * What the next chat-completion call gets: a reply (or one computed from the request), a failure
 * (see `FailureStep`), a stream whose second data line is not JSON (a 200 body that is not JSON
 * when not streaming), a stream that stalls after its first text chunk, or a valid stream of at
 * least `replyBytes` bytes.
 */
export type ServerStep = ServerAnswer | ((request: ChatRequest) => ServerAnswer);

/** A step as the server carries it out; a function step computes one from the request (a reply, or a failure for some callers only). */
export type ServerAnswer = ScriptReply | FailureStep | { readonly malformedChunk: true } | { readonly stallAfter: string } | { readonly replyBytes: number };

/**
 * What the next embeddings call gets: a failure (see `FailureStep`), vectors of `dimension`
 * numbers whatever was asked (a server whose model is not the one configured), or exactly
 * `vectors`. Unscripted calls get the hashed n-gram vectors of their inputs.
 */
export type EmbeddingStep = FailureStep | { readonly dimension: number } | { readonly vectors: readonly (readonly number[])[] };

/** An answer written exactly as given, whatever the request asked for. */
export interface RawAnswer {
  /** 200 by default. */
  readonly status?: number;
  /** No content-type header when absent. */
  readonly contentType?: string;
  readonly body: string;
}

/** What the server does for a call that fails, decided from its step. */
export type FailurePlan =
  | { readonly kind: 'error'; readonly status: number; readonly message: string; readonly retryAfter?: number | undefined; readonly code?: string | undefined }
  | { readonly kind: 'hang' | 'drop' }
  | { readonly kind: 'raw'; readonly answer: RawAnswer };

/** What the server does for one chat call, decided from its step. */
export type Plan =
  | { readonly kind: 'reply'; readonly reply: ScriptReply }
  | FailurePlan
  | { readonly kind: 'malformed' }
  | { readonly kind: 'stall'; readonly text: string }
  | { readonly kind: 'large'; readonly bytes: number };

/** What the server does for one embeddings call. */
export type EmbeddingPlan = FailurePlan | { readonly kind: 'vectors'; readonly dimension?: number; readonly vectors?: readonly (readonly number[])[] };

/** The plan of a failure step, or undefined for any other step; a step given by a user script is checked loosely. */
function failurePlanOf(step: object): FailurePlan | undefined {
  if ('status' in step) {
    const status = typeof step.status === 'number' ? step.status : 500;
    const retryAfter = 'retryAfter' in step && typeof step.retryAfter === 'number' ? step.retryAfter : undefined;
    const message = 'message' in step && typeof step.message === 'string' ? step.message : `Scripted error ${status}.`;
    const code = 'code' in step && typeof step.code === 'string' ? step.code : undefined;
    return { kind: 'error', status, message, retryAfter, code };
  }
  if ('hang' in step) return { kind: 'hang' };
  if ('dropConnection' in step) return { kind: 'drop' };
  if ('raw' in step) return { kind: 'raw', answer: step.raw as RawAnswer };
  return undefined;
}

/** Turns a step into a plan; a computed reply that throws becomes a 500. */
export function planOf(step: ServerStep, request: ChatRequest): Plan {
  try {
    if (typeof step === 'function') return planOf(step(request), request);
    const failure = failurePlanOf(step);
    if (failure !== undefined) return failure;
    if ('malformedChunk' in step) return { kind: 'malformed' };
    if ('stallAfter' in step) return { kind: 'stall', text: step.stallAfter };
    if ('replyBytes' in step) return { kind: 'large', bytes: step.replyBytes };
    return { kind: 'reply', reply: step as ScriptReply };
  } catch (error) {
    return { kind: 'error', status: 500, message: `The scripted reply failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Turns an embeddings step (or none: the hashed vectors) into a plan. */
export function embeddingPlanOf(step: EmbeddingStep | undefined): EmbeddingPlan {
  if (step === undefined) return { kind: 'vectors' };
  const failure = failurePlanOf(step);
  if (failure !== undefined) return failure;
  if ('vectors' in step) return { kind: 'vectors', vectors: step.vectors };
  if ('dimension' in step) return { kind: 'vectors', dimension: step.dimension };
  return { kind: 'vectors' };
}
