import type { ChatRequest } from '../messages.js';
import type { ScriptReply } from '../scriptedReply.js';

/**
 * What the next chat-completion call gets: a reply (or one computed from the request), an HTTP
 * error with OpenAI's error body (`retryAfter` seconds becomes a Retry-After header), a request
 * left unanswered until the client gives up, a destroyed socket, or a stream whose second data
 * line is not JSON (a 200 body that is not JSON when not streaming).
 */
export type ServerStep =
  | ScriptReply
  | ((request: ChatRequest) => ScriptReply)
  | { readonly status: number; readonly message?: string; readonly retryAfter?: number }
  | { readonly hang: true }
  | { readonly dropConnection: true }
  | { readonly malformedChunk: true };

/** What the server does for one chat call, decided from its step. */
export type Plan =
  | { readonly kind: 'reply'; readonly reply: ScriptReply }
  | { readonly kind: 'error'; readonly status: number; readonly message: string; readonly retryAfter?: number | undefined }
  | { readonly kind: 'hang' | 'drop' | 'malformed' };

/** Turns a step into a plan; a step given by a user script is checked loosely, and a computed reply that throws becomes a 500. */
export function planOf(step: ServerStep, request: ChatRequest): Plan {
  try {
    if (typeof step === 'function') return { kind: 'reply', reply: step(request) };
    if ('status' in step) {
      const status = typeof step.status === 'number' ? step.status : 500;
      const retryAfter = 'retryAfter' in step && typeof step.retryAfter === 'number' ? step.retryAfter : undefined;
      const message = 'message' in step && typeof step.message === 'string' ? step.message : `Scripted error ${status}.`;
      return { kind: 'error', status, message, retryAfter };
    }
    if ('hang' in step) return { kind: 'hang' };
    if ('dropConnection' in step) return { kind: 'drop' };
    if ('malformedChunk' in step) return { kind: 'malformed' };
    return { kind: 'reply', reply: step };
  } catch (error) {
    return { kind: 'error', status: 500, message: `The scripted reply failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
