import type { Command } from 'commander';
import { TroupeError } from '../errors.js';
import type { OrgStore } from '../org/index.js';
import { mayTerminate } from '../runtime/society/terminationRule.js';
import type { CliIo } from './cliIo.js';
import { reportFailure } from './cliIo.js';
import { withOrganisation } from './dataDir.js';
import { ExitCode } from './exitCodes.js';

export interface TerminateAgentOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  readonly reason?: string;
}

/** The agent the runtime takes its work with: the user never terminates it. */
const rootId = 'root';

/** The agent and its live descendants, parents first. */
function liveSubtree(store: OrgStore, agentId: string): string[] {
  const out = [agentId];
  for (let i = 0; i < out.length; i++) out.push(...store.children(out[i] ?? '').filter((id) => store.agent(id)?.status === 'active'));
  return out;
}

/**
 * `troupe agents terminate <id>`: terminates an agent and its descendants in the data dir as the
 * user, under the rule `DELETE /api/agents/:id` follows (a top-level agent other than root, or a
 * top-level agent's child: a child of root that no turn will terminate). No runtime may have the
 * data dir open: what it keeps in memory would not hear of it; against a running service, use
 * the HTTP route. The agents' unanswered Tasks are not handed back after a restart.
 */
async function terminateAgent(agentId: string, options: TerminateAgentOptions, io: CliIo): Promise<ExitCode> {
  return withOrganisation(options.dataDir, io, async (store) => {
    try {
      const agent = store.agent(agentId);
      if (agent === undefined) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
      const allowed = agentId !== rootId && mayTerminate(agent, 'user', (id) => store.agent(id));
      if (!allowed) {
        throw new TroupeError('not_parent', `the user may not terminate ${agentId}: only ${agent.parentAgentId ?? 'the runtime'} may`, {
          context: { agentId, by: 'user' },
        });
      }
      if (agent.status === 'terminated') {
        io.stdout.write(`${agentId} was already terminated\n`);
        return ExitCode.ok;
      }
      const reason = options.reason ?? 'terminated by the user';
      const gone = liveSubtree(store, agentId);
      // Children first, so no moment on disk has a live agent under a terminated one.
      for (const id of gone.toReversed()) {
        const terminatedBy = id === agentId ? 'user' : (store.agent(id)?.parentAgentId ?? 'user');
        await store.markTerminated({ agentId: id, terminatedBy, reason, mode: 'abort' });
        await store.clearConversations(id);
      }
      io.stdout.write(`terminated ${gone.join(', ')}\n`);
      return ExitCode.ok;
    } catch (error) {
      return reportFailure(io, error, `cannot terminate ${agentId}`);
    }
  });
}

/** Adds `troupe agents terminate` to the program, run on `io`. */
export function registerAgentsCommand(program: Command, io: CliIo): void {
  const agents = program.command('agents').description('act on the agents of the organisation in the data dir');
  agents
    .command('terminate')
    .description(
      "terminate an agent and its descendants as the user (a top-level agent but root, or a top-level agent's child), with no runtime running on the data dir",
    )
    .argument('<agentId>', 'the agent to terminate')
    .option('--data-dir <dir>', 'the organisation to change (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--reason <text>', 'why, as recorded with the termination')
    .action(async (agentId: string, options: TerminateAgentOptions) => {
      process.exitCode = await terminateAgent(agentId, options, io);
    });
}
