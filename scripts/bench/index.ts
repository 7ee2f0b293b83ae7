/**
 * `npm run bench`: troupe's bus, agent mailboxes and spawning against bare RxJS and XState, and a
 * tool loop through the whole runtime against a hand-written one, the HTTP API against bare
 * Fastify, L4 memory's vector index against exact search, and a turn's context built from memory
 * against tokenising it, and the NATS transport against the raw NATS client: one markdown table
 * per suite (`suites.ts`).
 * BENCH_ONLY=<text> runs only the suites whose name contains it; BENCH_SIZE=smoke runs each at a
 * tiny size, all at once (`benchSize.ts`). A suite that fails is reported and the rest still run;
 * the exit code is then 1. Each suite's table is printed as soon as it is done, so a run cut short
 * keeps what it measured.
 * Progress goes to stderr (with every round's time when BENCH_VERBOSE=1), so stdout holds only the report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { silentLogger } from '../../src/logger.js';
import { loadHnswlib } from '../../src/memory/facts/hnswIndex.js';
import { chromiumPath } from '../../test/support/chromiumPath.js';
import { benchSize, inTurn } from './benchSize.js';
import { elapsedMs, gcSource } from './measure.js';
import { markdownTable } from './report.js';
import { type Suite, type SuiteNeed, suites } from './suites.js';

function header(): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  const [load] = loadavg();
  return [
    `node ${process.version}`,
    new Date().toISOString().slice(0, 10),
    `${model} (${cores.length} cores)`,
    `load avg at start ${load?.toFixed(2) ?? 'n/a'}`,
    `gc: ${gcSource}`,
    ...(benchSize === 'full' ? [] : [`size: ${benchSize} (figures meaningless)`]),
  ].join(' · ');
}

/**
 * Why a suite cannot run here (what it needs is missing), or null when it can. CI sets the
 * variable that makes a missing need a failure rather than a skip, as the tests do.
 */
async function missing(need: SuiteNeed | undefined): Promise<{ reason: string; required: boolean } | null> {
  if (need === undefined) return null;
  const checks: Record<SuiteNeed, { present: () => Promise<boolean> | boolean; variable: string; reason: string }> = {
    'nats-server': {
      present: () => spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).error === undefined,
      variable: 'TROUPE_REQUIRE_NATS_SERVER',
      reason: 'nats-server is not on PATH',
    },
    'hnswlib-node': {
      present: async () => (await loadHnswlib(silentLogger)) !== null,
      variable: 'TROUPE_REQUIRE_HNSWLIB',
      reason: 'hnswlib-node did not load (its build needs a C++ compiler)',
    },
    chromium: { present: () => existsSync(chromiumPath), variable: 'TROUPE_REQUIRE_CHROMIUM', reason: `Chromium is not at ${chromiumPath}` },
  };
  const { present, variable, reason } = checks[need];
  if (await present()) return null;
  return { reason: `skipped: ${reason} (docs/install.md)`, required: !['', '0', undefined].includes(process.env[variable]) };
}

/** Runs a suite and prints its section of the report (its heading and table, or why it failed); resolves with whether it failed. */
async function section(suite: Suite): Promise<boolean> {
  const absent = await missing(suite.needs);
  if (absent !== null) {
    process.stderr.write(`bench: ${suite.name} ${absent.reason}\n`);
    process.stdout.write(`\n### ${suite.name}\n\n${absent.reason}\n`);
    return absent.required;
  }
  process.stderr.write(`bench: ${suite.name}…\n`);
  const started = process.hrtime.bigint();
  let text: string;
  let failed = false;
  try {
    text = markdownTable(await suite.run());
    process.stderr.write(`bench: ${suite.name} done in ${(elapsedMs(started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`bench: ${suite.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    text = `failed: ${error instanceof Error ? error.message : String(error)}`;
    failed = true;
  }
  process.stdout.write(`\n### ${suite.name}\n\n${text}\n`);
  return failed;
}

async function main(): Promise<void> {
  process.stdout.write(`${header()}\n`);
  const started = process.hrtime.bigint();
  // BENCH_ONLY=<words> runs only the suites whose name contains them (e.g. BENCH_ONLY=react).
  const only = process.env['BENCH_ONLY']?.toLowerCase() ?? '';
  const chosen = suites.filter((candidate) => candidate.name.toLowerCase().includes(only));
  const together = chosen.filter((suite) => suite.alone !== true);
  const alone = chosen.filter((suite) => suite.alone === true);
  const outcomes: boolean[] = [...(await inTurn(together, section))];
  for (const suite of alone) outcomes.push(await section(suite));
  process.stdout.write(`\nran in ${(elapsedMs(started) / 1000).toFixed(1)} s\n`);
  const failed = [...together, ...alone].filter((_, i) => outcomes[i] === true).map((suite) => suite.name);
  if (failed.length > 0) {
    process.stderr.write(`bench: ${failed.length} suite(s) failed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main();
