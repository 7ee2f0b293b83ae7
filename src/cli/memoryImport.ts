import { readFile, stat } from 'node:fs/promises';
import { TroupeError, describeError } from '../errors.js';
import { HashedNgramEmbedder } from '../memory/embedding/hashedNgramEmbedder.js';
import { limitsOf } from '../memory/facts/factLimits.js';
import { RuntimeConfigSchema } from '../runtime/config/config.js';
import { memoryIndexDirOf } from '../runtime/journal/openJournal.js';
import { type ImportReport, importItems } from '../runtime/memory/programMemory.js';
import { AgentIdSchema } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { withOrganisation } from './dataDir.js';
import { memoryFromEnv } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { readLimits } from './limitSettings.js';

/** Bytes of a file `troupe memory import` reads; a larger one is refused before it is read. */
const maxImportFileBytes = 256 * 1024 * 1024;
/** Problems one refusal names; the rest are counted. */
const maxProblemsShown = 20;

export interface MemoryImportOptions {
  readonly dataDir?: string;
  readonly json: boolean;
}

/** The items of a JSON Lines file (blank lines skipped) and the line each came from, or the lines that are not JSON. */
function parseLines(text: string): { items: unknown[]; lineOf: number[] } | { problems: string[] } {
  const items: unknown[] = [];
  const lineOf: number[] = [];
  const problems: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      items.push(JSON.parse(line));
      lineOf.push(i + 1);
    } catch (error) {
      problems.push(`line ${i + 1}: not JSON (${describeError(error)})`);
    }
  }
  return problems.length > 0 ? { problems } : { items, lineOf };
}

/** An import's refusal with `items[i]` named by the file's line instead. */
function byLine(error: unknown, lineOf: readonly number[]): unknown {
  if (!(error instanceof TroupeError) || error.code !== 'invalid_input') return error;
  const message = error.message.replace(/items\[(\d+)\]\.?/g, (_, index: string) => `line ${lineOf[Number(index)] ?? '?'}: `);
  return new TroupeError('invalid_input', message.replace(/: : /g, ': '), { cause: error });
}

function refuse(io: CliIo, problems: readonly string[]): ExitCode {
  const shown = problems.slice(0, maxProblemsShown);
  const more = problems.length > shown.length ? [`… and ${problems.length - shown.length} more`] : [];
  io.stderr.write(`troupe: nothing imported:\n${[...shown, ...more].map((line) => `  ${line}\n`).join('')}`);
  return ExitCode.usage;
}

/** The file's text, or why it cannot be read (missing, a directory, past `maxImportFileBytes`). */
async function readItemsFile(file: string): Promise<{ text: string } | { problem: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return { problem: `${file} is not a file` };
    if (info.size > maxImportFileBytes) return { problem: `${file} is ${info.size} bytes, more than ${maxImportFileBytes} (import it in parts)` };
    return { text: await readFile(file, 'utf8') };
  } catch (error) {
    return { problem: `cannot read ${file}: ${describeError(error)}` };
  }
}

/**
 * `troupe memory import <agentId> <file.jsonl>`: facts and conversation turns (one JSON object a
 * line, as `rt.importMemory` takes them) into an agent's long-term memory in the data dir. Every
 * line is checked first, and one bad line refuses the file, naming each bad line. Run it while the
 * society is stopped: a running runtime holds its agents' memories open, so import into one
 * through its HTTP API (`POST /api/agents/:id/memory`). Resolves to the exit code.
 */
export async function memoryImportCommand(agentId: string, file: string, options: MemoryImportOptions, io: CliIo): Promise<ExitCode> {
  const checked = AgentIdSchema.safeParse(agentId);
  if (!checked.success) {
    io.stderr.write(`troupe: <agentId> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${agentId}"\n`);
    return ExitCode.usage;
  }
  const read = await readItemsFile(file);
  if ('problem' in read) return refuse(io, [read.problem]);
  const parsed = parseLines(read.text);
  if ('problems' in parsed) return refuse(io, parsed.problems);
  let settings: { memory: ReturnType<typeof memoryFromEnv>; maxImportItems: number };
  try {
    settings = { memory: memoryFromEnv(io.env), maxImportItems: readLimits(io.env).maxImportItems ?? RuntimeConfigSchema.parse({}).maxImportItems };
  } catch (error) {
    return reportFailure(io, error, 'bad settings in the environment');
  }
  return withOrganisation(options.dataDir, io, async (store, dir, logger) => {
    if (store.agent(agentId) === undefined) {
      io.stderr.write(`troupe: no agent ${agentId} in ${dir}\n`);
      return ExitCode.usage;
    }
    const { FactStore } = await import('../memory/facts/factStore.js');
    const { embedder, facts: limits } = settings.memory;
    let report: ImportReport;
    try {
      const facts = await FactStore.open({
        agentId,
        embedder: embedder === undefined ? new HashedNgramEmbedder() : embedder,
        db: store.environment,
        indexDir: memoryIndexDirOf(dir),
        logger,
        ...(limits === undefined ? {} : { limits }),
      });
      try {
        const bounds = { maxImportItems: settings.maxImportItems, maxFactChars: limitsOf(limits).maxFactChars };
        report = await importItems((batch) => facts.addMany(batch), parsed.items, bounds);
      } finally {
        await facts.close();
      }
    } catch (error) {
      return reportFailure(io, byLine(error, parsed.lineOf), `cannot import into ${agentId}'s memory`);
    }
    io.stdout.write(
      options.json
        ? `${JSON.stringify(report)}\n`
        : `imported ${parsed.items.length} items into ${agentId}'s memory in ${dir}: ${report.stored} facts stored, ${report.merged} merged into facts it held\n`,
    );
    return ExitCode.ok;
  });
}
