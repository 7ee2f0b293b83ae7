import type { Command } from 'commander';
import { z } from 'zod';
import { type ApprovalDecisionInput, ApprovalIdSchema, ApprovalSchema, type JsonValue } from '../task/index.js';
import { describeApproval } from './approvalView.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { ExitCode } from './exitCodes.js';
import { ServeClient, ServerUnreachable } from './serveClient.js';

const ApprovalsReplySchema = z.object({ approvals: z.array(ApprovalSchema) });

interface ServerFlags {
  /** `--url`: the running `troupe serve` (see `ServeClient`). */
  readonly url?: string;
}

interface DecisionFlags extends ServerFlags {
  readonly digest?: string;
  readonly by?: string;
  /** `approve --arguments`: run the call with these arguments instead (an edit). */
  readonly arguments?: string;
  /** `reject --message`: what the model reads of the rejection. */
  readonly message?: string;
}

/** Who a decision made with these commands is recorded as made by, unless `--by` says. */
const decidedByCli = 'cli';

/** A failure of one of these commands: an unreachable server is a setting to fix (exit 2), a refusal exits by its code. */
function failed(io: CliIo, error: unknown, about: string): ExitCode {
  if (error instanceof ServerUnreachable) {
    io.stderr.write(`troupe: ${about}: ${error.message}\n`);
    return ExitCode.usage;
  }
  return reportFailure(io, error, about);
}

/** `troupe approvals`: the calls waiting for a decision in the running service, oldest first; `--json`: the approvals as a JSON array. */
async function listApprovals(options: ServerFlags & { readonly json: boolean; readonly agent?: string }, io: CliIo): Promise<ExitCode> {
  const client = new ServeClient(options.url, io.env);
  try {
    const query = options.agent === undefined ? '' : `?agentId=${encodeURIComponent(options.agent)}`;
    const { approvals } = await client.call('GET', `/api/approvals${query}`, ApprovalsReplySchema);
    if (options.json) io.stdout.write(`${JSON.stringify(approvals)}\n`);
    else if (approvals.length === 0) io.stdout.write(`no tool call waits for approval at ${client.url}\n`);
    else io.stdout.write(`${approvals.map((approval) => describeApproval(approval).join('\n')).join('\n\n')}\n`);
    return ExitCode.ok;
  } catch (error) {
    return failed(io, error, 'cannot list the approvals');
  }
}

/** The decision the flags say, or a usage error naming the flag. */
function decisionOf(action: 'approve' | 'reject', flags: DecisionFlags): ApprovalDecisionInput | string {
  const common = { by: flags.by ?? decidedByCli, ...(flags.digest === undefined ? {} : { digest: flags.digest }) };
  if (action === 'reject') return { action, ...common, ...(flags.message === undefined ? {} : { message: flags.message }) };
  if (flags.arguments === undefined) return { action, ...common };
  let parsed: unknown;
  try {
    parsed = JSON.parse(flags.arguments);
  } catch {
    return `--arguments must be a JSON object, got "${flags.arguments}"`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return `--arguments must be a JSON object, got "${flags.arguments}"`;
  return { action: 'edit', ...common, arguments: parsed as Record<string, JsonValue> };
}

/** `troupe approve|reject <id>`: the decision, sent to the running service (`POST /api/approvals/:id`). */
async function decide(id: string, action: 'approve' | 'reject', flags: DecisionFlags, io: CliIo): Promise<ExitCode> {
  const checked = ApprovalIdSchema.safeParse(id);
  const decision = decisionOf(action, flags);
  const problem = !checked.success ? `<id> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${id}"` : typeof decision === 'string' ? decision : null;
  if (problem !== null || typeof decision === 'string') {
    io.stderr.write(`troupe: ${problem ?? ''}\n`);
    return ExitCode.usage;
  }
  const client = new ServeClient(flags.url, io.env);
  try {
    const decided = await client.call('POST', `/api/approvals/${id}`, ApprovalSchema, decision);
    const verb = decision.action === 'edit' ? 'approved with edited arguments' : decision.action === 'approve' ? 'approved' : 'rejected';
    io.stdout.write(`${verb} ${decided.tool} call ${decided.id} of ${decided.agentId}\n`);
    return ExitCode.ok;
  } catch (error) {
    return failed(io, error, `cannot ${action} ${id}`);
  }
}

const urlOption = ['--url <url>', 'the running troupe serve (default: $TROUPE_URL, else http://127.0.0.1:3000); TROUPE_TOKEN is its token'] as const;
const digestOption = ['--digest <digest>', "decide only if the call's arguments are still those of this digest (as listed)"] as const;
const byOption = ['--by <name>', 'who decides, as recorded with the decision (default: cli)'] as const;

/** Adds `troupe approvals`, `troupe approve` and `troupe reject` to the program, run on `io`. */
export function registerApprovalsCommands(program: Command, io: CliIo): void {
  program
    .command('approvals')
    .description("list the tool calls waiting for a person's approval in a running troupe serve")
    .option(...urlOption)
    .option('--agent <agentId>', "only this agent's")
    .option('--json', 'print the approvals as one JSON array', false)
    .action(async (options: ServerFlags & { json: boolean; agent?: string }) => {
      process.exitCode = await listApprovals(options, io);
    });
  program
    .command('approve')
    .description('approve a tool call waiting in a running troupe serve; with --arguments, run it with those arguments instead (an edit)')
    .argument('<id>', 'the approval id (as `troupe approvals` lists it)')
    .option(...digestOption)
    .option(...byOption)
    .option('--arguments <json>', "run the call with these arguments (a JSON object, checked against the tool's schema)")
    .option(...urlOption)
    .action(async (id: string, options: DecisionFlags) => {
      process.exitCode = await decide(id, 'approve', options, io);
    });
  program
    .command('reject')
    .description('reject a tool call waiting in a running troupe serve: it never runs, and the model reads why')
    .argument('<id>', 'the approval id (as `troupe approvals` lists it)')
    .option('--message <text>', 'what the model reads of the rejection')
    .option(...digestOption)
    .option(...byOption)
    .option(...urlOption)
    .action(async (id: string, options: DecisionFlags) => {
      process.exitCode = await decide(id, 'reject', options, io);
    });
}
