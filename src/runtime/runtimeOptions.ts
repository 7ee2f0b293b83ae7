import type { InspectionEvent } from 'xstate';
import type { EventBus, NodeDirectory } from '../bus/index.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { LogLevel, Logger } from '../logger.js';
import type { ModelClient, RetryPolicy } from '../llm/index.js';
import type { ToolPolicy } from '../task/index.js';
import type { SkillLimitsInput, SkillSource } from '../skills/index.js';
import type { McpServerConfigInput, RemoteRole, Tool } from '../tools/index.js';
import type { RuntimeConfigInput } from './config/config.js';
import type { MemoryOptions } from './memory/memoryOptions.js';
import type { SocietyHosting } from './society/society.js';
import type { HandoffFilter } from './agent/handoffDesk.js';
import type { Guardrail } from './agent/interceptors/guardrail.js';
import type { Interceptor } from './agent/interceptors/interceptor.js';
import type { RecordOption } from '../replay/index.js';
import type { TracingOptions } from './agent/tracing.js';

/** Everything a runtime is made from; the library reads no environment (see `modelFromEnv` for that). */
export interface RuntimeOptions extends RuntimeConfigInput {
  /** The model every agent uses; the offline scripted model when absent. */
  model?: ModelClient;
  /** Retry schedule for model calls (1, 2, 4 s by default), or false for none. */
  retry?: Partial<RetryPolicy> | false;
  bus?: EventBus;
  /**
   * Makes this runtime the owner of a society spread over several processes (its `bus` on NATS):
   * a new agent whose role a node announced (`troupe node --roles`) is placed on that node; the
   * organisation stays here. See `SocietyHosting` for the timeouts and `whileUnreachable`.
   */
  nodes?: Omit<SocietyHosting, 'portFor'> & { readonly directory: NodeDirectory };
  clock?: Clock;
  ids?: IdGenerator;
  /** Where the runtime logs; when absent, JSON lines on stderr at `logLevel`, or nothing at all without one. */
  logger?: Logger;
  logLevel?: LogLevel;
  /** Tools added to the shared registry besides the meta-tools. */
  tools?: readonly Tool[];
  /**
   * Agents outside the society that `delegate_task` gives work to by role, as to a local agent:
   * remote A2A agents (`a2aRemoteRole` from `troupe/nodes`). Each role at most once. See docs/a2a.md.
   */
  remoteRoles?: readonly RemoteRole[];
  /**
   * MCP servers by name, in the shape of the `mcpServers` file other MCP clients keep
   * (`{ command, args, env }` or `{ url, headers }`, plus troupe's limits and `trusted`): their
   * tools join the registry as `<server>__<tool>`; the servers are closed on shutdown. See docs/mcp.md.
   */
  mcpServers?: Readonly<Record<string, McpServerConfigInput>>;
  /** Receives XState inspection events of every actor (see `--inspect`). Off by default: it halves send speed. */
  inspect?: (event: InspectionEvent) => void;
  /**
   * Directory of the organisation store (LMDB). With it, roles, agents, terminations, every
   * Task's message log and the user's inbox are written durably, and a runtime created on the
   * same directory restores them. Absent or null: memory only.
   */
  dataDir?: string | null;
  /**
   * Values that must never leave the process (API keys, tokens), in any form (JSON-escaped,
   * URL-encoded …; see `Redactor`): every log line the runtime writes is redacted of them and of
   * well-known key shapes (`sk-…`, `Bearer …`), as are the errors agents answer with, streamed
   * thinking and agent ids. Outputs built on the runtime (the HTTP server, the CLI) use the same
   * `rt.redactor`. A secret shorter than 6 characters is ignored; one that is part of
   * `[REDACTED]` is refused (`invalid_input`).
   */
  secrets?: readonly string[];
  /**
   * Every agent's memory (L1–L4) and how each turn's context is built from it: capacities, ages,
   * thresholds, the embedder, the token budget (see `MemoryOptions`). Kept in the data dir when
   * there is one.
   */
  memory?: MemoryOptions;
  /**
   * Skills (docs/skills.md): made in code with `defineSkill`, or folders in the Agent Skills format
   * (a folder with a SKILL.md, or a folder of such folders). A bad one is left out, each problem
   * logged as a warning and listed in `rt.skillProblems`; the others load.
   */
  skills?: readonly SkillSource[];
  /** Bounds on skills: how many, how big, how many active at once (see `SkillLimits` for the defaults). */
  skillLimits?: SkillLimitsInput;
  /** The root agent's role prompt, tool policy and handoff targets. */
  root?: { prompt?: string; tools?: ToolPolicy; handoffs?: readonly string[] };
  /**
   * Models an agent may be spawned with by name (`rt.spawn({ role, model: 'small' })`), besides
   * `model`, the default; its children inherit it. Each is behind the same call limiter and retries.
   */
  models?: Readonly<Record<string, ModelClient>>;
  /** How handoffs pass the conversation on: `filter` chooses the messages the target gets (default: all but system messages). */
  handoffs?: { filter?: HandoffFilter };
  /**
   * Hooks around every turn, run in this order (docs/interceptors.md): before the turn starts,
   * before each model call, after each reply, before each tool call, after each tool result and
   * before the answer leaves; each may pass, change the value within its schema, or stop with a
   * reason. At most 32; each hook bounded by its `timeoutMs` or `interceptorTimeoutMs`.
   */
  interceptors?: readonly Interceptor[];
  /**
   * Checks on what goes into a turn (the prompt) and out of it (tool results, the answer), as
   * functions or model calls (`modelGuardrail`): a tripped one fails the Task with
   * `guardrail_tripped`, or replaces the output (docs/interceptors.md#guardrails). At most 32.
   */
  guardrails?: readonly Guardrail[];
  /**
   * Records the run in this file (docs/replay.md): the clock's readings, ids, model replies, the
   * results of tools that are not pure, notes, and the bus's Tasks, redacted like every output, as
   * JSON lines; `replayRuntime(file)` runs it again offline. At most `maxBytes` (100 MiB by
   * default): past it, model and tool calls are refused (`recording_limit`).
   */
  record?: RecordOption;
  /**
   * OpenTelemetry traces of the agents' work (docs/observability.md#traces): a span per turn, model
   * call and tool call, after the GenAI semantic conventions. Through the global tracer provider
   * unless `tracerProvider` is given, so nothing is recorded until an SDK is registered; prompts,
   * replies and tool arguments and results go on spans only with `content: true`, redacted first.
   */
  tracing?: TracingOptions;
}

export const rootPrompt = [
  'You are the root agent of a society of AI agents. The user gives you requirements.',
  'Break the work down: create roles (create_role), spawn child agents of those roles (spawn_agent),',
  'delegate sub-tasks and wait for their results (delegate_task), terminate children whose work is done',
  '(terminate_agent), then answer the user with the final result.',
].join(' ');
