import { type Command, InvalidArgumentError } from 'commander';
import { type MemoryQuery, MemoryQuerySchema, type MemoryTier, type MemoryView } from '../runtime/views/memoryQuery.js';
import { AgentIdSchema, Redactor } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { withOrganisation } from './dataDir.js';
import { readSecrets } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { integerAtLeast } from './integerArgument.js';
import { formatMemory } from './memoryTable.js';
import { type MemoryImportOptions, memoryImportCommand } from './memoryImport.js';

export interface MemoryCommandOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  readonly json: boolean;
  readonly tier?: MemoryTier;
  readonly session?: string;
  readonly search?: string;
  readonly k?: number;
  readonly offset?: number;
  readonly limit?: number;
}

/** The flag of each query field, for a refusal the user can act on. */
const flags: Readonly<Record<string, string>> = { tier: '--tier', sessionId: '--session', search: '--search', k: '--k', offset: '--offset', limit: '--limit' };

/** The query the flags make, or a usage line naming the flag at fault. */
function queryOf(options: MemoryCommandOptions): { query: MemoryQuery } | { refusal: string } {
  const parsed = MemoryQuerySchema.safeParse({
    tier: options.tier,
    sessionId: options.session,
    search: options.search,
    k: options.k,
    offset: options.offset,
    limit: options.limit,
  });
  if (parsed.success) return { query: parsed.data };
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? '');
  return { refusal: `${flags[field] ?? 'the options'}: ${issue?.message ?? 'invalid'}` };
}

/** Each view the command prints: the tier or search asked for, or every tier. */
function viewsOf(query: MemoryQuery): MemoryQuery[] {
  if (query.tier !== null || query.search !== null) return [query];
  return (['l1', 'l2', 'l3', 'l4'] as const).map((tier) => ({ ...query, tier }));
}

/**
 * `troupe memory <agentId>`: what an agent remembers, read from the data dir without opening its
 * memory (`StoredMemory`), so it works on a stopped society and beside a running one; printed
 * as a table or one JSON line per entry, redacted. Resolves to the exit code.
 */
async function memoryCommand(agentId: string, options: MemoryCommandOptions, io: CliIo): Promise<ExitCode> {
  const checked = AgentIdSchema.safeParse(agentId);
  if (!checked.success) {
    io.stderr.write(`troupe: <agentId> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${agentId}"\n`);
    return ExitCode.usage;
  }
  const made = queryOf(options);
  if ('refusal' in made) {
    io.stderr.write(`troupe: ${made.refusal}\n`);
    return ExitCode.usage;
  }
  return withOrganisation(options.dataDir, io, async (store, dir, logger) => {
    if (store.agent(agentId) === undefined) {
      io.stderr.write(`troupe: no agent ${agentId} in ${dir}\n`);
      return ExitCode.usage;
    }
    // Loaded when the command runs, with the store: agents' memory is not the CLI's to load.
    const [{ StoredMemory }, { memoryView }] = await Promise.all([import('../memory/index.js'), import('../runtime/views/memoryView.js')]);
    const reader = StoredMemory.read({ agentId, db: store.environment, logger, embedder: null });
    const redactor = new Redactor(readSecrets(io.env));
    const views: MemoryView[] = [];
    try {
      for (const query of viewsOf(made.query)) views.push(await memoryView(reader, query, 'store', redactor));
    } catch (error) {
      return reportFailure(io, error);
    }
    io.stdout.write(options.json ? views.flatMap((view) => view.entries.map((entry) => `${JSON.stringify(entry)}\n`)).join('') : formatMemory(views, dir));
    return ExitCode.ok;
  });
}

function tierOf(value: string): MemoryTier {
  const tier = value.toLowerCase();
  if (tier === 'l1' || tier === 'l2' || tier === 'l3' || tier === 'l4') return tier;
  throw new InvalidArgumentError(`--tier must be l1, l2, l3 or l4, got "${value}"`);
}

/** Adds `troupe memory` (and `troupe memory import`) to the program, run on `io`. */
export function registerMemoryCommand(program: Command, io: CliIo): void {
  const memory = program.command('memory');
  memory
    .command('import')
    .description(
      "put facts and conversation turns (a JSON Lines file, one item a line) into an agent's long-term memory in the data dir; with the society stopped",
    )
    .argument('<agentId>', 'the agent')
    .argument('<file>', 'the items: {"text": …} facts and {"kind": "turn", "speaker": …, "text": …} turns')
    .option('--data-dir <dir>', 'the organisation (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--json', 'print the report as JSON (every fact stored, with its item)', false)
    // `--data-dir` and `--json` are `memory`'s options too, and commander gives them to it wherever they stand.
    .action(async (agentId: string, file: string, _options: MemoryImportOptions, command: Command) => {
      process.exitCode = await memoryImportCommand(agentId, file, command.optsWithGlobals<MemoryImportOptions>(), io);
    });
  memory
    .description("print what an agent remembers (its memory's tiers, or the facts closest to --search) from the data dir (read-only)")
    .argument('<agentId>', 'the agent')
    .option('--data-dir <dir>', 'the organisation to read (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--tier <tier>', 'only this tier: l1 (recent Tasks), l2 (important Tasks), l3 (summaries), l4 (facts)', tierOf)
    .option('--session <id>', "only this session's entries (l4: its facts and the agent-wide ones)")
    .option('--search <text>', 'the l4 facts closest to this text, closest first')
    .option('--k <n>', 'how many facts --search finds (default 10, at most 100)', integerAtLeast('--k', 1))
    .option('--offset <n>', 'skip the first n entries of each tier', integerAtLeast('--offset', 0))
    .option('--limit <n>', 'print at most n entries of each tier (default 50, at most 500)', integerAtLeast('--limit', 1))
    .option('--json', 'print each entry as one JSON line', false)
    .action(async (agentId: string, options: MemoryCommandOptions) => {
      process.exitCode = await memoryCommand(agentId, options, io);
    });
}
