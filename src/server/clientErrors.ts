import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors.js';
import { HttpError, toResponse } from './httpErrors.js';
import { pathOf } from './requestPath.js';

/** A refusal made before a request reached a route: Node's parser, its timeouts, or Fastify's router. */
function clientErrorOf(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'client_timeout', message: 'the request was not received in time (headersTimeoutMs, requestTimeoutMs)' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'the request line and headers are over 16 KiB' };
    default:
      return { code: 'bad_request', message: `the request is not valid HTTP/1.1 (${error.code ?? error.message})` };
  }
}

/**
 * Fastify's `clientErrorHandler`: Node found the request malformed, too large in its headers,
 * or too slow. It answers in the API's error format (`{ error: { code, message, field } }`),
 * then closes the connection, which cannot carry another request.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already cut: there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Already answered (a reply went out and its body is being discarded): only the cut is left.
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { code, message } = clientErrorOf(error);
  const { status, body } = toResponse(new HttpError(code, message));
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
  socket.once('finish', () => socket.destroy());
}

/** Fastify's `frameworkErrors`: its router's refusals (a param too long, a URL it cannot decode) in the API's format. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refusal =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new HttpError('url_too_long', 'a path segment of this URL is over 200 characters')
      : new HttpError('bad_request', `the URL ${pathOf(request.url)} cannot be decoded`);
  const { status, body } = toResponse(refusal);
  void reply.status(status).send(body);
}
