import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeFor } from '../../src/cli/exitCodes.js';
import { TroupeError, ValidationError, errorCodes } from '../../src/errors.js';
import { HttpError, statusOf, toResponse } from '../../src/server/httpErrors.js';
import { ErrorBodySchema } from '../../src/server/schemas.js';

// One catalogue: every code has a status and an exit code, and what leaves the server is one of them.
describe('the error catalogue on the wire', () => {
  it('gives every code an HTTP error status and a non-zero exit code', () => {
    for (const code of errorCodes) {
      expect(statusOf(code), code).toBeGreaterThanOrEqual(400);
      expect(statusOf(code), code).toBeLessThan(600);
      expect(Object.values(ExitCode), code).toContain(exitCodeFor(code));
      expect(exitCodeFor(code), code).not.toBe(ExitCode.ok);
    }
  });

  it('makes HttpError a TroupeError whose status comes from the table, and reports its field', () => {
    const error = new HttpError('unknown_task', 'no task "t9"', { field: 'taskId' });
    expect(error).toBeInstanceOf(TroupeError);
    expect(error).toMatchObject({ name: 'HttpError', code: 'unknown_task', status: 404, field: 'taskId' });
    expect(toResponse(error)).toEqual({ status: 404, body: { error: { code: 'unknown_task', message: 'no task "t9"', field: 'taskId' } } });
  });

  it('answers a model_error 502 with its code but none of its details', () => {
    const error = new TroupeError('model_error', 'model openai:m failed: HTTP 401: key sk-secret revoked', { cause: new Error('401') });
    const { status, body } = toResponse(error);
    expect(status).toBe(502);
    expect(body).toEqual({ error: { code: 'model_error', message: 'the server failed to handle this request', field: null } });
    expect(ErrorBodySchema.parse(body)).toEqual(body);
  });

  it('shows a 4xx TroupeError and a ValidationError whole, naming the field of the latter', () => {
    expect(toResponse(new TroupeError('mailbox_full', 'agent root has 3 Tasks waiting'))).toEqual({
      status: 429,
      body: { error: { code: 'mailbox_full', message: 'agent root has 3 Tasks waiting', field: null } },
    });
    expect(toResponse(new ValidationError('text', 'must not be empty'))).toEqual({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'text: must not be empty', field: 'text' } },
    });
  });

  it('hides what an uncoded throw says', () => {
    expect(toResponse(new Error('ENOENT /secret/path'))).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'the server failed to handle this request', field: null } },
    });
  });
});
