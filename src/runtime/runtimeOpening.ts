import { type Clock, systemClock } from '../clock.js';
import { type Logger, createLogger, silentLogger } from '../logger.js';
import { type Skill, type SkillLimits, type SkillProblem, describeProblem, loadSkillSources } from '../skills/index.js';
import { Redactor, redactingLogger } from '../task/index.js';
import { type McpServerConfig, mcpSecrets, parseMcpServers } from '../tools/index.js';
import type { RuntimeConfig } from './config/config.js';
import type { Journal } from './journal/journal.js';
import { openJournal } from './journal/openJournal.js';
import type { MemorySettings } from './memory/memoryOptions.js';
import { Measurements } from './society/measurements.js';
import type { RuntimeOptions } from './runtimeOptions.js';
import { runtimeSettings } from './runtimeSettings.js';

/** The skills `create` loaded, their bounds, and the problems of those refused. */
export interface LoadedSkillsOption {
  readonly loaded: readonly Skill[];
  readonly limits: SkillLimits;
  readonly problems: readonly SkillProblem[];
}

/** What a runtime is made with: its settings, its logger, what it loaded, and its journal (the data dir's store, or memory). */
export interface RuntimeOpening {
  readonly config: RuntimeConfig;
  readonly memorySettings: MemorySettings;
  readonly redactor: Redactor;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly loadedSkills: LoadedSkillsOption;
  readonly journal: Journal;
  /** Where the store's commits (and, once the society is built, its model calls) report what they timed. */
  readonly measurements: Measurements;
}

/** The redactor of everything a runtime lets out: of its `secrets`, and of its MCP servers' env and headers. */
export function runtimeRedactor(secrets: readonly string[] | undefined, mcpServers: Readonly<Record<string, McpServerConfig>>): Redactor {
  return new Redactor([...(secrets ?? []), ...mcpSecrets(mcpServers)]);
}

/**
 * Reads a runtime's options and opens its journal: bad settings are refused with a ValidationError
 * naming them, before anything is opened; skills that break a rule are logged and left out.
 */
export async function runtimeOpening(options: RuntimeOptions): Promise<RuntimeOpening> {
  const { config, memorySettings, level, skillLimits } = runtimeSettings(options);
  const mcpServers = parseMcpServers(options.mcpServers ?? {});
  // A library is quiet unless given a logger or a level; whatever it writes is redacted, of the MCP servers' env and headers too.
  const redactor = runtimeRedactor(options.secrets, mcpServers);
  const logger = redactingLogger(options.logger ?? (level === undefined ? silentLogger : createLogger(level)), redactor);
  const skills = await loadSkillSources(options.skills ?? [], skillLimits);
  for (const problem of skills.problems) logger.warn({ file: problem.file, field: problem.field }, `skill refused: ${describeProblem(problem)}`);
  const loadedSkills = { loaded: skills.skills, limits: skillLimits, problems: skills.problems };
  const clock = options.clock ?? systemClock;
  const batch = { delayMs: config.commitDelayMs, maxWrites: config.maxHeldWrites };
  const { messageLogLimit, terminatedAgentsKept } = config;
  const measurements = new Measurements();
  const onCommit = measurements.storeCommitted;
  const journal = await openJournal(options.dataDir ?? null, { logger, clock, batch, messageLogLimit, terminatedAgentsKept, onCommit });
  return { config, memorySettings, redactor, logger, clock, mcpServers, loadedSkills, journal, measurements };
}
