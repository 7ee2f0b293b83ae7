import type { ChatRequest } from '../messages.js';
import type { ScriptReply } from '../scriptedReply.js';

/**
 * What the next chat-completion call gets: a reply (or one computed from the request), an HTTP
 * error with OpenAI's error body (`retryAfter` seconds becomes a Retry-After header, `code` the
 * body's error code), a request left unanswered until the client gives up, a destroyed socket, a
 * stream whose second data line is not JSON (a 200 body that is not JSON when not streaming), a
 * stream that stalls after its first text chunk, a valid stream of at least `replyBytes` bytes,
 * or a raw answer (status, content type and body as given: an HTML page, an empty body, JSON).
 */
export type ServerStep =
  | ScriptReply
  | ((request: ChatRequest) => ScriptReply)
  | { readonly status: number; readonly message?: string; readonly retryAfter?: number; readonly code?: string }
  | { readonly hang: true }
  | { readonly dropConnection: true }
  | { readonly malformedChunk: true }
  | { readonly stallAfter: string }
  | { readonly replyBytes: number }
  | { readonly raw: RawAnswer };

/** An answer written exactly as given, whatever the request asked for. */
export interface RawAnswer {
  /** 200 by default. */
  readonly status?: number;
  /** No content-type header when absent. */
  readonly contentType?: string;
  readonly body: string;
}

/** What the server does for one chat call, decided from its step. */
export type Plan =
  | { readonly kind: 'reply'; readonly reply: ScriptReply }
  | { readonly kind: 'error'; readonly status: number; readonly message: string; readonly retryAfter?: number | undefined; readonly code?: string | undefined }
  | { readonly kind: 'hang' | 'drop' | 'malformed' }
  | { readonly kind: 'stall'; readonly text: string }
  | { readonly kind: 'large'; readonly bytes: number }
  | { readonly kind: 'raw'; readonly answer: RawAnswer };

/** Turns a step into a plan; a step given by a user script is checked loosely, and a computed reply that throws becomes a 500. */
export function planOf(step: ServerStep, request: ChatRequest): Plan {
  try {
    if (typeof step === 'function') return { kind: 'reply', reply: step(request) };
    if ('status' in step) {
      const status = typeof step.status === 'number' ? step.status : 500;
      const retryAfter = 'retryAfter' in step && typeof step.retryAfter === 'number' ? step.retryAfter : undefined;
      const message = 'message' in step && typeof step.message === 'string' ? step.message : `Scripted error ${status}.`;
      const code = 'code' in step && typeof step.code === 'string' ? step.code : undefined;
      return { kind: 'error', status, message, retryAfter, code };
    }
    if ('hang' in step) return { kind: 'hang' };
    if ('dropConnection' in step) return { kind: 'drop' };
    if ('malformedChunk' in step) return { kind: 'malformed' };
    if ('stallAfter' in step) return { kind: 'stall', text: step.stallAfter };
    if ('replyBytes' in step) return { kind: 'large', bytes: step.replyBytes };
    if ('raw' in step) return { kind: 'raw', answer: step.raw };
    return { kind: 'reply', reply: step };
  } catch (error) {
    return { kind: 'error', status: 500, message: `The scripted reply failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
