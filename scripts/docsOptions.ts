/**
 * Writes the option tables of the docs from the zod schemas, so each default is written once:
 * every region `<!-- options: NAME -->` … `<!-- /options -->` of the README and docs/ is replaced
 * by NAME's table (option, what it means, its default from the schema).
 *
 *   npx tsx scripts/docsOptions.ts          rewrites the regions that are out of date
 *
 * test/docs/options.test.ts fails when a region differs from what this would write.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CompactorConfigSchema } from '../src/runtime/config/compactorConfig.js';
import { RoutingSettingsSchema, RuntimeConfigSchema } from '../src/runtime/config/config.js';
import { McpLimitsSchema } from '../src/tools/mcp/mcpConfig.js';
import { SkillLimitsSchema } from '../src/skills/skillLimits.js';
import { MemoryLimitsSchema } from '../src/memory/limits.js';
import { FactLimitsSchema } from '../src/memory/facts/factLimits.js';
import { GraphLimitsSchema } from '../src/graph/graphLimits.js';
import { ServerLimitsSchema } from '../src/server/serverLimits.js';
import { DurableMailboxOptionsSchema, NatsTransportOptionsSchema } from '../src/bus/transports/natsTransportOptions.js';
import { ModelLimitsSchema } from '../src/llm/modelLimits.js';
import { ContextBudgetSchema } from '../src/context/contextBudget.js';
import { limitVariables } from '../src/cli/limitSettings.js';
import { NodeDirectoryOptionsSchema } from '../src/bus/nodeDirectory.js';
import { NodePlacementLimitsSchema } from '../src/runtime/society/nodePlacement.js';
import { NodeHostLimitsSchema } from '../src/runtime/nodes/nodeHostLimits.js';
import {
  compactorOptions,
  contextOptions,
  durableOptions,
  factsOptions,
  graphOptions,
  httpOptions,
  memoryOptions,
  modelOptions,
  mcpOptions,
  modelVariables,
  natsOptions,
  nodesOptions,
  routingOptions,
  runtimeOptions,
  skillOptions,
} from './docsOptionDescriptions.js';

export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** One table: its options' meanings, in row order, and their defaults as the schema gives them. */
interface OptionTable {
  readonly meanings: Readonly<Record<string, string>>;
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Defaults the schema cannot say (an option whose absence means something). */
  readonly absent?: Readonly<Record<string, string>>;
  /** The environment variable the CLI reads for each option that has one: the table gets a column for them. */
  readonly variables?: Readonly<Record<string, string>>;
}

/** Each runtime limit's variable, from the CLI's own map. */
const runtimeVariables = Object.fromEntries(Object.entries(limitVariables).map(([variable, option]) => [option, variable]));

/** An object's fields, a nested object's as `outer.inner`. */
function flattened(value: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) =>
      field !== null && typeof field === 'object' && !Array.isArray(field)
        ? Object.entries(flattened(field as Record<string, unknown>, `${prefix}${key}.`))
        : [[`${prefix}${key}`, field]],
    ),
  );
}

/** The defaults a schema fills in when given nothing (an object schema's every field, nested ones as `outer.inner`). */
const defaultsOf = (schema: z.ZodType, given: Record<string, unknown> = {}): Record<string, unknown> =>
  flattened(schema.parse(given) as Record<string, unknown>);

/** The same, a nested object's default kept whole (written as a literal). */
const wholeDefaultsOf = (schema: z.ZodType): Record<string, unknown> => schema.parse({}) as Record<string, unknown>;

/** Some of a table's rows, shown on a page of their own. */
const rowsOf = (table: OptionTable, options: readonly string[]): OptionTable => ({
  ...table,
  meanings: Object.fromEntries(options.map((option) => [option, table.meanings[option] ?? `${option} is no row of the table`])),
});

const runtimeTable: OptionTable = { meanings: runtimeOptions, defaults: defaultsOf(RuntimeConfigSchema), variables: runtimeVariables };

export const optionTables: Readonly<Record<string, OptionTable>> = {
  runtime: runtimeTable,
  artifacts: rowsOf(runtimeTable, ['maxArtifactBytes', 'maxArtifactsPerTask', 'maxArtifactStoreBytes', 'artifactPreviewChars']),
  handoffs: rowsOf(runtimeTable, ['maxHandoffsPerTask', 'maxHandoffMessages', 'sessionAgentsInMemory']),
  mcp: { meanings: mcpOptions, defaults: defaultsOf(McpLimitsSchema) },
  skills: { meanings: skillOptions, defaults: defaultsOf(SkillLimitsSchema) },
  routing: { meanings: routingOptions, defaults: wholeDefaultsOf(RoutingSettingsSchema) },
  compactor: { meanings: compactorOptions, defaults: defaultsOf(CompactorConfigSchema), variables: runtimeVariables },
  memory: { meanings: memoryOptions, defaults: defaultsOf(MemoryLimitsSchema) },
  facts: { meanings: factsOptions, defaults: defaultsOf(FactLimitsSchema) },
  graph: { meanings: graphOptions, defaults: defaultsOf(GraphLimitsSchema) },
  http: { meanings: httpOptions, defaults: defaultsOf(ServerLimitsSchema) },
  nats: {
    meanings: natsOptions,
    defaults: defaultsOf(NatsTransportOptionsSchema, { servers: 'nats://127.0.0.1:4222' }),
    absent: { maxPayloadBytes: "the server's (1 MiB by default)" },
  },
  durable: { meanings: durableOptions, defaults: defaultsOf(DurableMailboxOptionsSchema) },
  nodes: {
    meanings: nodesOptions,
    defaults: defaultsOf(z.object({ nodes: NodePlacementLimitsSchema, NodeDirectory: NodeDirectoryOptionsSchema, NodeHost: NodeHostLimitsSchema }), {
      nodes: {},
      NodeDirectory: {},
      NodeHost: {},
    }),
    absent: { 'nodes.whileUnreachable': "`'fail'` (`'wait'` with durable mailboxes)" },
  },
  context: { meanings: contextOptions, defaults: defaultsOf(ContextBudgetSchema) },
  model: { meanings: modelOptions, defaults: defaultsOf(ModelLimitsSchema), variables: modelVariables },
};

const units: readonly [number, string, string][] = [
  [86_400_000, 'day', 'days'],
  [3_600_000, 'h', 'h'],
  [60_000, 'min', 'min'],
  [1_000, 's', 's'],
];
const byteUnits: readonly [number, string][] = [
  [1024 * 1024 * 1024, 'GiB'],
  [1024 * 1024, 'MiB'],
  [1024, 'KiB'],
];

/** An array or object default as it would be written in code: `['a', 'b']`, `{ score: 0.3 }`. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([key, field]) => `${key}: ${literal(field)}`)
      .join(', ')} }`;
  return String(value);
}

/** A default as a reader takes it in: `30 s`, `4 MiB`, `10,000`, `off (null)`, `'wait'`. */
export function formatDefault(option: string, value: unknown): string {
  if (value === null) return 'off (`null`)';
  if (typeof value === 'string') return `\`'${value}'\``;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return `\`${literal(value)}\``;
  if (typeof value !== 'number') throw new Error(`${option}: no way to write its default ${JSON.stringify(value)}`);
  if (option.endsWith('Ms')) {
    const unit = units.find(([size]) => value >= size && value % size === 0);
    if (unit === undefined) return `${value.toLocaleString('en-US')} ms`;
    const count = value / unit[0];
    return `${count.toLocaleString('en-US')} ${count === 1 ? unit[1] : unit[2]}`;
  }
  if (option.endsWith('Bytes')) {
    const unit = byteUnits.find(([size]) => value >= size && value % size === 0);
    return unit === undefined ? `${value.toLocaleString('en-US')} bytes` : `${value / unit[0]} ${unit[1]}`;
  }
  return value.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** The markdown table of one region, a row per option. */
export function renderTable(table: OptionTable): string {
  const { variables } = table;
  const rows = Object.entries(table.meanings).map(([option, meaning]) => {
    const value = table.absent?.[option] ?? formatDefault(option, table.defaults[option]);
    if (variables === undefined) return `| \`${option}\` | ${meaning} | ${value} |`;
    const variable = variables[option];
    return `| \`${option}\` | ${variable === undefined ? '' : `\`${variable}\``} | ${meaning} | ${value} |`;
  });
  const header =
    variables === undefined
      ? ['| option | what it sets | default |', '| --- | --- | --- |']
      : ['| option | variable (CLI) | what it sets | default |', '| --- | --- | --- | --- |'];
  return [...header, ...rows].join('\n');
}

const regionPattern = /(<!-- options: ([\w-]+) -->\n)([\s\S]*?)(<!-- \/options -->)/g;

/** A region of a page: the table it names and the text it holds now. */
export interface OptionRegion {
  readonly name: string;
  readonly text: string;
}

export function regionsOf(markdown: string): OptionRegion[] {
  return [...markdown.matchAll(regionPattern)].map((match) => ({ name: match[2] ?? '', text: match[3] ?? '' }));
}

/** The page with every region's table written afresh; a region naming no table is refused. */
export function rewriteRegions(markdown: string, file: string): string {
  return markdown.replace(regionPattern, (_all, open: string, name: string, _text: string, close: string) => {
    const table = optionTables[name];
    if (table === undefined) throw new Error(`${file}: <!-- options: ${name} --> names no table (${Object.keys(optionTables).join(', ')})`);
    return `${open}${renderTable(table)}\n${close}`;
  });
}

/** The README and every page under docs/, from the project's root. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(projectRoot, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => join('docs', file))];
}

function main(): void {
  for (const file of markdownFiles()) {
    const path = join(projectRoot, file);
    const before = readFileSync(path, 'utf8');
    const after = rewriteRegions(before, file);
    if (after === before) continue;
    writeFileSync(path, after);
    process.stdout.write(`rewrote the option tables of ${file}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
