import type { FastifyInstance } from 'fastify';
import { TroupeError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import { type Approval, ApprovalDecisionSchema, ApprovalSchema, type Redactor, parseOrThrow, redactApproval } from '../task/index.js';
import { HttpError } from './httpErrors.js';
import { responseSchema } from './responseSchema.js';
import { ApprovalIdParamsSchema, ApprovalsQuerySchema, ApprovalsReplySchema } from './schemas.js';

const approvalReply = responseSchema(ApprovalSchema);
const approvalsReply = responseSchema(ApprovalsReplySchema);

/** Who a decision is recorded as made by when the request does not say: this door. */
const decidedOverHttp = 'http';

/** `rt.decide`'s refusals, an unknown approval naming the path's `id`. */
function asRequestError(error: unknown, id: string): unknown {
  if (error instanceof TroupeError && error.code === 'unknown_approval') {
    return new HttpError(error.code, `no tool call waits for approval ${id} (never asked for, or its call is over)`, { field: 'id', cause: error });
  }
  return error;
}

/**
 * Where a person decides over HTTP (docs/approvals.md): `GET /api/approvals` (the calls waiting,
 * oldest first, of one agent with `?agentId=`), `GET /api/approvals/:id` (one, waiting or decided
 * while its call is not over) and `POST /api/approvals/:id` (the decision, `rt.decide`: 409
 * `conflict` when decided already or made on other arguments, 404 `unknown_approval`, 400
 * naming the field of a decision that is not one or an edit the tool's schema refuses).
 * Arguments are redacted as everything leaving the server is.
 */
export function registerApprovalRoutes(app: FastifyInstance, runtime: Runtime, redactor: Redactor): void {
  const shown = (approval: Approval): Approval => redactApproval(approval, redactor);
  app.get('/api/approvals', { schema: { response: { 200: approvalsReply } } }, async (request) => {
    const { agentId } = parseOrThrow(ApprovalsQuerySchema, request.query);
    return { approvals: runtime.approvals(agentId === undefined ? {} : { agentId }).map(shown) };
  });
  app.get('/api/approvals/:id', { schema: { response: { 200: approvalReply } } }, async (request) => {
    const { id } = parseOrThrow(ApprovalIdParamsSchema, request.params);
    const approval = runtime.approval(id);
    if (approval === undefined) throw asRequestError(new TroupeError('unknown_approval', `no approval ${id}`), id);
    return shown(approval);
  });
  app.post('/api/approvals/:id', { schema: { response: { 200: approvalReply } } }, async (request) => {
    const { id } = parseOrThrow(ApprovalIdParamsSchema, request.params);
    const decision = parseOrThrow(ApprovalDecisionSchema, request.body);
    try {
      return shown(await runtime.decide(id, { ...decision, by: decision.by ?? decidedOverHttp }));
    } catch (error) {
      throw asRequestError(error, id);
    }
  });
}
