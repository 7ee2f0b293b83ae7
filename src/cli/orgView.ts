import type { Command } from 'commander';
import type { AgentRecord, OrgStore, QuarantineEntry, RoleRecord, TerminationRecord } from '../org/index.js';
import type { CliIo } from './cliIo.js';
import { Redactor } from '../task/index.js';
import { counted } from './counted.js';
import { withOrganisation } from './dataDir.js';
import { readSecrets } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { dateTime } from './timeFormat.js';

export interface OrgViewOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  readonly json: boolean;
}

/**
 * `troupe org`: prints the roles and the agent tree of the organisation in the data dir,
 * reading only; resolves to the exit code.
 *
 * @example
 * process.exitCode = await orgView({ json: false }, { stdout: process.stdout, stderr: process.stderr, env: process.env });
 */
function orgView(options: OrgViewOptions, io: CliIo): Promise<ExitCode> {
  return withOrganisation(options.dataDir, io, (store) => {
    // Role prompts and termination reasons are free text: a secret may have been typed into one.
    const redactor = new Redactor(readSecrets(io.env));
    io.stdout.write(options.json ? `${JSON.stringify(redactor.unknown(orgJson(store), 10), null, 2)}\n` : redactor.text(orgText(store)));
    return ExitCode.ok;
  });
}

/** Adds `troupe org` to the program, run on `io`. */
export function registerOrgCommand(program: Command, io: CliIo): void {
  program
    .command('org')
    .description('print the roles and the agent tree stored in the data dir (read-only)')
    .option('--data-dir <dir>', 'the organisation to read (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--json', 'print {roles, agents, terminations, quarantined} as JSON', false)
    .action(async (options: OrgViewOptions) => {
      process.exitCode = await orgView(options, io);
    });
}

/** The organisation as JSON; a quarantined record's raw bytes become base64. */
function orgJson(store: OrgStore): unknown {
  return {
    roles: store.roles(),
    agents: store.agents(),
    terminations: store.terminations(),
    quarantined: store.quarantined().map((entry: QuarantineEntry) => ({ ...entry, raw: Buffer.from(entry.raw).toString('base64') })),
  };
}

function orgText(store: OrgStore): string {
  const roles = store.roles().sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const agents = store.agents();
  const lines = [`roles (${roles.length})`];
  lines.push(...columns(roles.map((role) => [role.name, role.id, `created by ${role.createdBy}`, dateTime(role.createdAt)])).map((line) => `  ${line}`));
  lines.push(`agents (${agents.length})`);
  lines.push(...agentTreeLines(agents, roles, store.terminations()).map((line) => `  ${line}`));
  const quarantined = store.quarantined().length;
  if (quarantined > 0) lines.push(`${counted(quarantined, 'record')} quarantined; see --json`);
  return `${lines.join('\n')}\n`;
}

/**
 * One line per agent, `<id>  <role name>  <status>`, children under their parent with tree
 * drawing. An agent whose parent is not in the store (say, quarantined) starts a tree of its own.
 */
function agentTreeLines(agents: readonly AgentRecord[], roles: readonly RoleRecord[], terminations: readonly TerminationRecord[]): string[] {
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  const roleNames = new Map(roles.map((role) => [role.id, role.name]));
  const endings = new Map(terminations.map((termination) => [termination.agentId, termination]));
  const ordered = [...agents].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const childrenOf = (id: string): AgentRecord[] => ordered.filter((agent) => agent.parentAgentId === id);
  const rows: string[][] = [];
  // Guards against a parent cycle in damaged data: every agent is drawn exactly once.
  const drawn = new Set<string>();

  const draw = (agent: AgentRecord, branch: string, indent: string, note: string): void => {
    drawn.add(agent.id);
    const ending = endings.get(agent.id);
    const role = roleNames.get(agent.roleId) ?? `(unknown role ${agent.roleId})`;
    const detail = agent.status === 'terminated' && ending !== undefined ? `terminated by ${ending.terminatedBy}: ${ending.reason}` : '';
    rows.push([`${branch}${agent.id}`, role, agent.status, [detail, note].filter((part) => part !== '').join('  ')]);
    const children = childrenOf(agent.id).filter((child) => !drawn.has(child.id));
    children.forEach((child, i) => {
      const last = i === children.length - 1;
      draw(child, `${indent}${last ? '└─ ' : '├─ '}`, `${indent}${last ? '   ' : '│  '}`, '');
    });
  };

  for (const agent of ordered) if (agent.parentAgentId === null) draw(agent, '', '', '');
  for (const agent of ordered) {
    if (!drawn.has(agent.id)) {
      const parent = agent.parentAgentId ?? '';
      draw(agent, '', '', byId.has(parent) ? `(parent ${parent}: cycle)` : `(parent ${parent} not found)`);
    }
  }
  return columns(rows);
}

/** Lays rows out in columns two spaces apart; the last column is not padded. */
function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
