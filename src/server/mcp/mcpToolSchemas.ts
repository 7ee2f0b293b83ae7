import { z } from 'zod';
import { AgentIdSchema, ApprovalDecisionSchema, ApprovalIdSchema, TaskIdSchema } from '../../task/index.js';
import { SubmitBodySchema, maxPageSize } from '../schemas.js';

// The arguments of the MCP server's tools: each tool's input schema (what a client lists) and its
// check (a bad argument is an error result naming the field) are these, as the HTTP API's are its own.

/** Longest a tool call may wait for an answer before it returns the Task's id to read it by later. */
const maxWaitSeconds = 600;

const WaitSecondsSchema = z
  .number()
  .min(0, 'must be ≥ 0')
  .max(maxWaitSeconds, `must be ≤ ${maxWaitSeconds} (wait again with await_answer)`)
  .default(60)
  .describe('how long to wait for the answer, in seconds (0: return at once); past it the call returns the task id to wait on with await_answer');

const TextSchema = SubmitBodySchema.shape.text;

const page = (limitDefault: number) => ({
  offset: z.number().int().min(0).default(0).describe('how many to skip'),
  limit: z.number().int().min(1).max(maxPageSize).default(limitDefault).describe(`how many to return, at most ${maxPageSize}`),
});

export const SubmitArgsSchema = z.object({ text: TextSchema.describe('the requirement, for the root agent'), waitSeconds: WaitSecondsSchema }).strict();

export const ContinueArgsSchema = z
  .object({
    sessionId: TaskIdSchema.describe('the session to continue (as submit_requirement returned it)'),
    text: TextSchema.describe('the next message of the session'),
    waitSeconds: WaitSecondsSchema,
  })
  .strict();

export const AwaitArgsSchema = z
  .object({
    taskId: TaskIdSchema.describe('the Task whose answer to wait for (as submit_requirement or continue_session returned it)'),
    sessionId: TaskIdSchema.optional().describe('its session (absent: the task id, as for the first Task of a session)'),
    waitSeconds: WaitSecondsSchema,
  })
  .strict();

export const ReadMessagesArgsSchema = z
  .object({
    taskId: TaskIdSchema.describe('the session (the id of its first Task)'),
    ...page(100),
    scope: z.enum(['user', 'all']).default('user').describe('user: what reached the user; all: every Task of the tree (with a data dir)'),
  })
  .strict();

export const ListAgentsArgsSchema = z
  .object({ ...page(100), status: z.enum(['active', 'terminated']).optional().describe('only live agents, or only terminated ones') })
  .strict();

export const ListApprovalsArgsSchema = z.object({ agentId: AgentIdSchema.optional().describe("only this agent's calls") }).strict();

export const DecideArgsSchema = z
  .object({
    id: ApprovalIdSchema.describe('the approval (as list_approvals lists it)'),
    decision: ApprovalDecisionSchema.describe(
      "approve; reject (with a message the model reads); or edit (run with these arguments instead); digest: decide only if the call's arguments are still those",
    ),
  })
  .strict();
