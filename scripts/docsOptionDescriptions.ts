import type { z } from 'zod';
import type { CompactorConfigSchema } from '../src/runtime/config/compactorConfig.js';
import type { RuntimeConfigSchema, RoutingSettingsSchema } from '../src/runtime/config/config.js';
import type { MemoryLimitsSchema } from '../src/memory/limits.js';
import type { FactLimitsSchema } from '../src/memory/facts/factLimits.js';
import type { GraphLimitsSchema } from '../src/graph/graphLimits.js';
import type { ServerLimitsSchema } from '../src/server/serverLimits.js';
import type { DurableMailboxOptionsSchema, NatsTransportOptionsSchema } from '../src/bus/transports/natsTransportOptions.js';
import type { ModelLimitsSchema } from '../src/llm/modelLimits.js';
import type { SharedSource } from '../src/context/contextBudget.js';
import type { McpLimitsSchema } from '../src/tools/mcp/mcpConfig.js';
import type { SkillLimitsSchema } from '../src/skills/skillLimits.js';
import type { NodeDirectoryOptionsSchema } from '../src/bus/nodeDirectory.js';
import type { NodePlacementLimitsSchema } from '../src/runtime/society/nodePlacement.js';
import type { NodeHostLimitsSchema } from '../src/runtime/nodes/nodeHostLimits.js';

// What each option of an option table means, as the docs say it; its type and default come from
// its zod schema (scripts/docsOptions.ts). Each map is typed by its schema's keys, so an option
// added to a schema without a line here fails the typecheck. Rows are written in this order.

type Options<Schema extends z.ZodType> = keyof z.input<Schema>;

/** `createRuntime`'s limits, but the memory compactor's (its own table). */
/** `routing` is an object of the router's own options, tabled in docs/routing.md. */
type RuntimeLimit = Exclude<Options<typeof RuntimeConfigSchema>, Options<typeof CompactorConfigSchema> | 'routing'>;

/** The NATS transport's options that are no limit (how it connects), described in the page's prose. */
type NatsConnection = 'servers' | 'society' | 'name' | 'token' | 'user' | 'password' | 'tls' | 'durableMailboxes';
type NatsLimit = Exclude<Options<typeof NatsTransportOptionsSchema>, NatsConnection>;

/** `createRuntime`'s limits (docs/runtime-and-limits.md). */
export const runtimeOptions: Record<RuntimeLimit, string> = {
  drainTimeoutMs:
    'how long shutdown lets work in flight finish, and how long a terminate in drain mode lets the subtree finish its work (per call: `rt.terminate(id, { drainTimeoutMs })`, at most 2³¹−1 ms)',
  maxSteps: 'model calls per turn',
  maxRepeatedToolCalls: 'the same call with the same arguments is refused at this count; once more ends the turn',
  maxToolCallsPerReply:
    "tool calls one model reply may make: the first this many run, each call past it is answered with a `tool_call_limit` refusal (the model reads it as that call's result) and never runs, after a restart too",
  maxConversationMessages: 'past this, the agent is warned before every model call to `compress_context` (its parent once, when the turn goes over)',
  mailboxLimit:
    "Tasks one agent may have waiting. The user's past it are refused at intake (`submit`/`send` reject with `mailbox_full`; HTTP 429 with `Retry-After`), so one acknowledged is never rejected later; other agents' are answered `rejected` with `mailbox_full`. Tasks handed back after a restart are queued whatever their number",
  toolTimeoutMs: 'time limit for a tool call',
  approvalExpiryMs: "how long a tool call waits for a person's approval before it is rejected as expired",
  maxPendingApprovals: 'tool calls waiting for approval across the runtime; one more is refused with approval_limit',
  maxPendingApprovalsPerAgent: 'tool calls of one agent waiting for approval; one more is refused with approval_limit',
  interceptorTimeoutMs: 'time limit for one interceptor hook (unless it names its own); past it the hook stops the work it guards',
  maxInputChars: 'longest input accepted',
  maxImportItems: 'items one `rt.importMemory`, `POST /api/agents/:id/memory` or `troupe memory import` may hold; more are refused before any is stored',
  inboxLimit: 'messages to the user kept in memory, and read back from the store on a restart (the store keeps up to `messageLogLimit`)',
  messageLogLimit:
    "with `dataDir`: Tasks the message log keeps across every session, and Tasks the store keeps of the user's inbox; past it the oldest go, checked every 256 appends (so either may run over by that many), at most 4,096 a check (a limit lowered on a big store is reached over the next checks, in small transactions), a session keeping its newest Tasks in order. A Task takes about 0.4–5 KB on disk",
  commitDelayMs:
    'with `dataDir`: how long a record nobody waits for (log entry, conversation step) is held to commit with others in one transaction; anything that waits for durability commits it at once',
  maxHeldWrites: 'with `dataDir`: records held at most; the next one commits them all',
  maxHeldUntilDurable:
    "with `dataDir`: Tasks the outputs (the user endpoint, `onOutput`, each `rt.events()` stream: the event stream, `troupe run`) hold together while an answer to the user waits for its commit, with everything behind it. At it, the user's new work is refused at intake (`store_behind`, HTTP 429 with `Retry-After: 1`) until the store catches up; nothing held is dropped or let out before its commit, and work already taken still runs, so it may pass the limit by what that work says meanwhile",
  maxLiveAgents: 'live agents in the society (restored ones count, but a restart never refuses one); a spawn past it is refused with `agent_limit`',
  maxChildrenPerAgent: 'live children of one agent; a spawn past it is refused with `children_limit`',
  reapIdleChildrenAfterMs:
    'a child agent (any agent with a parent) whose whole subtree has had no work for this long, on the runtime\'s clock, is terminated by the runtime (`terminatedBy: "runtime"`, mode `drain`); checked every quarter of it, so one goes between 1 and 1.25 times it after its last work. Top-level agents never are. Off by default: a parent may keep children for later turns; set it above the longest a parent leaves a child idle between two uses',
  maxSpawnDepth: 'depth of the agent tree (a top-level agent such as `root` is at depth 1); a spawn past it is refused with `spawn_depth_limit`',
  maxConcurrentModelCalls: "model calls in flight at once across the whole society; the rest wait their turn, oldest first (as many as one agent's lanes)",
  maxQueuedModelCalls: 'model calls waiting for a slot; one more fails its turn with `model_queue_full`',
  maxTaskTokens: "tokens (prompt + completion, as the provider reports them) one Task's turn may use; past it the turn fails with `token_budget`",
  restoreSliceTasks:
    "with `dataDir`, after a restart: how much of the background restore runs before it yields to the event loop. A slice starts agents, oldest first, until the waiting Tasks handed back to them reach this (an agent with none counts 1); an agent is never split, so one slice is at most this or one agent's waiting Tasks",
  terminatedAgentsInMemory:
    'terminated agents whose records stay in memory (the newest); older ones leave memory, and with `dataDir` are read from the store (with `dataDir`, never more than `terminatedAgentsKept`, so memory never shows an agent the store forgot)',
  terminatedAgentsKept:
    'with `dataDir`: terminated agents the store keeps (the newest); past it the oldest are forgotten, checked every 16 terminations and when the runtime starts, at most 256 a round: their records, conversations and memories (L1–L4 entries and index files) go, and they are then unknown (`unknown_agent`). A worker spawned per request leaves about 3.5 KB',
  maxTaskMs: "how long one Task's turn may take, on the runtime's clock; then whatever it is doing is aborted and the turn fails with `time_budget`",
  maxLanesPerAgent:
    "sessions one agent serves at once: each session's turn runs in a lane of its own, so turns of different sessions run side by side while a session's Tasks run one after another; past it, Tasks wait in the mailbox (in arrival order) until a lane frees",
  sessionsInMemoryPerAgent:
    "sessions whose context (conversation) one agent keeps in memory; past it the least recently used idle session's is let go: its last turn's steps are dropped, in memory and in the store (so the store keeps steps for no more sessions than memory), and its next Task continues from the session's exchanges in the agent's memory (L1–L4). A session with a turn in progress is never let go",
  maxArtifactBytes:
    "bytes one artifact may have (UTF-8 for text); a larger one is not stored (`artifact_limit`), the tool call's result tells the model so, and the Task goes on ([artifacts](artifacts.md))",
  maxArtifactsPerTask: "artifacts one Task's tool calls may store; past it the next is refused the same way",
  maxArtifactStoreBytes:
    'bytes of every artifact stored together (in the data dir, or in memory); past it the artifacts of the Tasks that ended first are evicted (each eviction logged), then those of Tasks that never ended whose first artifact is older than `maxTaskMs`, and a new artifact is refused when none is left to evict',
  artifactPreviewChars: 'characters of a text artifact the model sees beside its reference (0: none); never the whole of a larger one',
  maxHandoffsPerTask:
    'times one Task may be handed from agent to agent (`transfer_to_<name>`); one more handoff is refused (`handoff_limit`) and the model reads why, so two agents never hand a Task back and forth forever ([handoffs](handoffs.md))',
  maxHandoffMessages: "messages of the session's conversation a handoff passes to its target at most, the newest (after the filter)",
  sessionAgentsInMemory:
    'sessions whose agent since a handoff is kept in memory, most recently used; past it the least recently used is let go (with a data dir it is read back from the store when its session speaks again)',
};

/** The memory compactor's options, of `createRuntime` (docs/memory.md). */
export const compactorOptions: Record<Options<typeof CompactorConfigSchema>, string> = {
  compactionConcurrency: "agents' memories compacted at once (one batch); the rest wait in the queue, each agent once",
  compactionSweepMs: "how often every live memory is looked at for entries that only aged (an idle agent's)",
  compactionModelTimeoutMs:
    "one compaction model call, on the runtime's clock, from waiting for a model-call slot to its last chunk; then it is aborted (never retried) and the fallback used",
  compactionSummaryMaxTokens: "tokens a summary's reply may have (sent as `max_completion_tokens`)",
  compactionFactsMaxTokens: "tokens a fact extraction's reply may have",
  compactionMaxReplyChars: 'characters of a reply read at most; a longer one is refused (a server that ignores max tokens)',
  compactionMaxInputChars: 'characters of the Tasks or summaries put in one request; each item gets an even share, cut with `…`',
};

/** One agent's memory, L1–L3: `createRuntime({ memory: { limits } })` (docs/memory.md). */
export const memoryOptions: Record<Options<typeof MemoryLimitsSchema>, string> = {
  l1Capacity: 'full Tasks in L1; past it the oldest leave at the next compaction',
  l1MaxAgeMs: 'how long a Task stays in L1',
  l2Threshold: 'importance above which a Task is marked for L2',
  l2Capacity: 'full Tasks in L2; past it the least important (effective importance) go to L3',
  l2MaxAgeMs: 'how long a Task stays in L1 and L2, from when it was observed',
  l3Capacity: 'summaries in L3; past it the least important go to L4 as facts',
  l3MaxAgeMs: 'how long a summary stays in L3, from the newest Task it summarises',
  maxBacklog:
    "entries a tier may hold beyond its capacity until compaction catches up. The user's new work to an agent is refused at intake (`memory_behind`, HTTP 429 with `Retry-After: 1`) once its L1, with what the new Task and each Task it has taken and not answered are expected to add (the agent's recent average of entries per answered Task, at most half the backlog), would pass `l1Capacity + maxBacklog` less a quarter of the backlog: that quarter is left for when the estimate falls short. Past the whole backlog, `observe` refuses the Task (`'refused'`; one summarising warning per 10 s) and compaction moves nothing into that tier. A memory that opens past a capacity (a restart) is compacted at once",
  halfLifeMs: 'time in which importance halves',
  retrievalBoost: 'effective importance added by each retrieval',
  entriesPerStep: 'entries one `compact` call moves at most',
  summaryMaxChars: 'longest L3 summary (at most 200)',
  maxFactsPerBatch: 'facts kept from one batch of summaries moving to L4 (the rest are dropped, with a warning)',
  factMaxChars: 'longest fact made from summaries (at most 500)',
};

/** One agent's L4: `createRuntime({ memory: { facts } })` (docs/memory.md). */
export const factsOptions: Record<Options<typeof FactLimitsSchema>, string> = {
  maxFacts: 'the most `compressAbove` may be set to',
  maxFactChars: "characters of a fact's text",
  maxMetadataBytes: "bytes of a fact's metadata as JSON",
  maxQueryChars: "characters of a search's text (a turn searches with its Task's opening and close within it, so a long Task never fails for it)",
  maxSearchResults: "a search's `k`",
  mergeThreshold: 'closeness at which a new fact is merged into a stored one',
  clusterThreshold: 'closeness at which compression joins two facts into a cluster',
  fidelityThreshold: 'lowest cosine between a merged fact and each original for the merge to happen',
  compressAbove:
    "the most facts an agent holds: an add that finds this many makes room first (see the bound above); above it, `needsCompression()` says so (at most `maxFacts`). Each fact held costs about 4 KB of memory while its agent lives (384 dimensions: hnswlib's vector and links, the JS copy that searches within a session use, the record) and 2 KB of store file: `node --expose-gc --import tsx scripts/factFootprint.ts [facts] [sessions] [every] [compressAbove]` prints the curve (from 2,000 to 8,000 facts: +24 MB anonymous memory, +12 MB of store). `TROUPE_L4_COMPRESS_ABOVE` for the CLI",
  keepTopN:
    "facts kept by a compression that was due, each session's most important within an equal share, when merging leaves more or without an embedder (at most `compressAbove`; one fewer when equal to it and making room for an add); `TROUPE_L4_KEEP_TOP_N` for the CLI, 80% of `TROUPE_L4_COMPRESS_ABOVE` when only that is set",
  maxWaitingAdds:
    'adds waiting at once for a compression (while one runs, or for room in a full store); one more is refused with `memory_full`; `TROUPE_L4_MAX_WAITING_ADDS` for the CLI',
  maxUnindexed:
    "vectors of added facts waiting at once to go into the index: an add's vector goes in later, between turns of the event loop, and until then searches compare with it directly; an add that finds this many waiting puts its own in at once (an import's turns wait whatever this is; a group of at most 2,048 keeps its vectors out of the index instead, see above; 0: every add puts its vector in at once, none kept out)",
  clusterNeighbours: 'neighbours of each fact compared when clustering',
  maxMergedFrom: "origins kept in a fact's `mergedFrom` (the newest)",
  halfLifeMs: "time in which a fact's importance halves",
  retrievalBoost: 'effective importance each retrieval adds',
  m: "hnswlib's links per node",
  efConstruction: "hnswlib's breadth when inserting",
  efSearch: "hnswlib's breadth when searching",
  initialCapacity: 'vectors an index has room for when made; it doubles when full',
  exactSearch:
    "search by comparing the query with every fact instead of through hnswlib's graph, as L4 does when hnswlib-node is not installed ([install.md](install.md)): exact, no index file, linear in the facts",
  graphDepth:
    "links a search's graph channel follows from its best hits (a turn to the turns beside it, a fact to its Tasks' events, a node along its edges); each link past the first halves what a hit is lent; 0 turns the channel off ([Hybrid retrieval](#hybrid-retrieval-how-l4-facts-are-found))",
  graphNodes: 'hits the graph channel may add to those the keyword and vector channels found, however many links it meets (0 turns it off)',
  graphSeeds: 'best fused hits the graph channel starts from',
  recencyWeight: "how much a hit's recency (1 for the newest hit, halved every `halfLifeMs` before it) raises its fused score in the re-rank",
  importanceWeight: "how much a hit's importance (0..1; a graph node's is 0.5) raises its fused score in the re-rank",
  linkWeight: "how much a hit's links to the other hits (their weights summed, over the best-linked hit's) raise its fused score in the re-rank",
};

/** Each graph memory (an agent's, the society's): `createRuntime({ memory: { graph } })` (docs/memory.md). */
export const graphOptions: Record<Options<typeof GraphLimitsSchema>, string> = {
  maxNodes:
    "nodes one graph holds; one more (a tool's `add_note` or `create_event`, a program's) is refused with `memory_full`. A graph is held in memory whole while its owner lives: at the defaults its contents alone may reach 80 MB (10,000 nodes of 4,000 characters)",
  maxEdges: 'edges one graph holds; one more is refused with `memory_full`',
  maxLinksPerBatch: 'links one `linkMany` call may carry; a longer batch is refused whole, changing nothing',
  maxContentChars: "characters of a node's content",
  maxTitleChars: "characters of a note's title",
  maxTags: 'tags of one note',
  maxTagChars: 'characters of one tag',
  maxSourceChars: "characters of a note's source (a path, a URL)",
  maxMetadataBytes: "bytes of a node's metadata, as JSON",
};

/** `createHttpServer`'s limits (docs/http.md). */
export const httpOptions: Record<Options<typeof ServerLimitsSchema>, string> = {
  bodyLimitBytes: 'a request body; larger gets `413 body_too_large`',
  headersTimeoutMs: "time to send a request's headers; then `408 client_timeout` and the connection is closed (`troupe serve --headers-timeout <s>`)",
  requestTimeoutMs: 'time to send a whole request, headers and body; then `408 client_timeout` and closed (`--request-timeout <s>`)',
  lingerBytes: 'after a refusal sent before the body was read (401, 413, 415 …), how much of the body is still read and dropped before the connection is cut',
  maxEventStreams: 'event streams open at once, over all clients; more get `429 too_many_streams`',
  maxEventStreamsPerClient: 'event streams of one client (one token, or one remote address without auth)',
  maxStreamBufferBytes: 'bytes one event stream holds that its client has not read; past it the client is cut off',
  maxTotalStreamBufferBytes: 'bytes all event streams hold together; past it the streams holding most are cut off',
  replayBufferEvents: 'newest events kept for clients reconnecting with `Last-Event-ID`; one asking from further back gets `event: reset`',
  maxMcpWaits: 'MCP tool calls on `/mcp` waiting for an answer at once; past it a call returns its task id at once, saying so (`await_answer` waits later)',
};

/** `connectNatsTransport`'s limits (docs/distributed.md). */
export const natsOptions: Record<NatsLimit, string> = {
  maxPayloadBytes:
    "one Task message; a larger Task is refused (`publish` throws `task_too_large`, naming its size and the limit). The server's `max_payload` applies too, whichever is smaller",
  maxPendingBytes:
    'bytes sent that the server has not confirmed yet (the client buffers them meanwhile), and Tasks held while the connection is down; one more send is refused with `transport_full`',
  maxSubscriptions:
    'distinct NATS subscriptions of one bus (one per agent with a mailbox on it, one per action pattern watched); one more `to`/`on`/`subscribe` is refused with `transport_full`',
  maxWorkPerSender: "`execute` Tasks from one sender on the wire that this bus's agents have not answered; one more is answered `failed` with `transport_full`",
  maxWorkFromWire: 'the same over every sender together',
  replayWindowTasks:
    "work Tasks (agent and Task id) a bus remembers in memory to drop a replay of them; older work replayed is run again, unless the runtime's store still logs it (with a data dir)",
  dropWarningIntervalMs: 'warnings of messages dropped from the wire: one line per interval, counting them by kind',
  connectTimeoutMs: 'the first connection',
  reconnectWaitMs: 'the wait between two attempts to reconnect (they never stop)',
  whileDisconnected: "`'wait'` holds Tasks sent while the connection is down, `'fail'` refuses them",
};

/** `connectNatsTransport({ durableMailboxes })` (docs/distributed.md). */
export const durableOptions: Record<Options<typeof DurableMailboxOptionsSchema>, string> = {
  ackWaitMs:
    'how long a node may hold a Task unacknowledged before JetStream hands it to another; a live node extends it while the agent works. `TROUPE_NATS_ACK_WAIT` (seconds) for the CLI; give every process the same',
  maxStoredTasks: "Tasks the society's stream keeps at once, over every mailbox; one more is refused (`mailbox_full`)",
  maxStoredBytes: 'bytes the stream keeps at once; one more Task is refused (`mailbox_full`)',
  maxAgeMs: 'how long a Task may wait in a mailbox before JetStream drops it',
  maxUnacknowledged: 'Tasks one mailbox hands its node before the node acknowledges any',
  maxDeliveries: 'deliveries of one Task (each hand-back counts) before it is given up and its sender answered `agent_unreachable`',
  duplicateWindowMs: 'how long the stream remembers each work Task stored (its `Nats-Msg-Id`): a replay within it is not stored again (at most `maxAgeMs`)',
};

/** `OpenAIModel`'s limits of one call (docs/models.md). */
export const modelOptions: Record<Options<typeof ModelLimitsSchema>, string> = {
  timeoutMs: "one attempt, from sending the request to the stream's last chunk (an embedding call: its whole reply)",
  idleTimeoutMs: 'silence between two reads of a streamed reply, from its headers on',
  maxReplyBytes: "bytes of one reply's body: a streamed completion, an embedding, an error page",
};

/** The variables `modelFromEnv` (so the CLI) reads for them. */
export const modelVariables: Record<Options<typeof ModelLimitsSchema>, string> = {
  timeoutMs: 'TROUPE_MODEL_TIMEOUT_MS',
  idleTimeoutMs: 'TROUPE_MODEL_IDLE_TIMEOUT_MS',
  maxReplyBytes: 'TROUPE_MODEL_MAX_REPLY_BYTES',
};

/** A turn's context: `createRuntime({ memory: { context } })` (docs/memory.md); `shares` flattened. */
export const contextOptions: Record<'tokens' | `shares.${SharedSource}` | 'warnAtTurnShare', string> = {
  tokens: "tokens of a turn's messages, frames included (64 to 10,000,000)",
  'shares.recent': "L1 Tasks' part of what the role prompt, the turn and the newest exchange leave",
  'shares.important': "L2 Tasks' part",
  'shares.summaries': "L3 summaries' part",
  'shares.retrieval': "L4 facts' part",
  'shares.inherited': "the parent's context's part",
  warnAtTurnShare: "`contextWarning` warns once the turn's steps use more than this part of `tokens`",
};

/** A society over several processes: the owner's `nodes` option, its `NodeDirectory`, and each `NodeHost` (docs/distributed.md). */
type NodesOption =
  | `nodes.${Options<typeof NodePlacementLimitsSchema>}`
  | `NodeDirectory.${Options<typeof NodeDirectoryOptionsSchema>}`
  | `NodeHost.${Options<typeof NodeHostLimitsSchema>}`;

export const nodesOptions: Record<NodesOption, string> = {
  'nodes.nodeRequestTimeoutMs':
    'how long a node has to confirm a placement or a stop; then the spawn fails (`agent_unreachable`), or the stop is taken as done',
  'nodes.whileUnreachable':
    "`'fail'` answers the work of an unreachable node's agents at once; `'wait'` leaves callers to their timeouts (with durable mailboxes only `'wait'`: the work waits for the agent's next node)",
  'NodeDirectory.maxNodes': 'nodes known at once; one more announcing is refused with a log line',
  'NodeDirectory.missedHeartbeats': 'heartbeats a node may miss before it is `unreachable`',
  'NodeHost.orgRequestTimeoutMs':
    "how long a node's agent waits for the owner to answer a spawn, termination or new role; then its meta-tool call fails with `request_timeout`, naming the option, and the agent goes on",
  'NodeHost.maxConcurrentToolCalls': 'tool calls the node serves at once (`servedTools`); one more is refused with `mailbox_full`',
};

/** Each MCP server's bounds, set next to its `command` or `url` (docs/mcp.md). */
export const mcpOptions: Record<Options<typeof McpLimitsSchema>, string> = {
  connectTimeoutMs:
    'the connection and `initialize` must finish within it, else `MCP server "x" did not answer initialize within N ms (connectTimeoutMs)`; the server counts as down and is retried',
  listTimeoutMs:
    '`tools/list` (all its pages) must finish within it, else `MCP server "x" did not list its tools within N ms (listTimeoutMs)`; on connection, as for a failed connection; on a `list_changed` refresh, the old list stays and a warning is logged',
  callTimeoutMs: 'a call past it is cancelled and the model reads `<tool> on MCP server "x" timed out after N ms (callTimeoutMs)`',
  maxResultBytes:
    'a larger result is not given to the model, which reads `<tool> on MCP server "x" answered N bytes, more than the M a result may have (maxResultBytes)`; a stdio message over four times this (plus 64 KB) ends the connection, which is then restarted',
  maxTools: 'only the first `maxTools` tools are taken, with a warning',
  maxRestarts:
    'restarts (stdio) or reconnections (HTTP) in a row; past it the server is `failed` and its tools answer `… it was given up after N restarts (maxRestarts)`. A server that stayed up for `maxBackoffMs` has its count start again',
  backoffMs: 'the wait before a restart, doubled each time',
  maxBackoffMs: 'the longest wait before a restart',
  trusted: 'its tool annotations are relied on (see Trust)',
  requireApproval: "its tools' calls wait for a person's approval (all but a trusted server's read-only ones, docs/approvals.md); false lets them run unasked",
};

/** The router's options, `createRuntime({ routing })` (docs/routing.md). */
export const routingOptions: Record<Options<typeof RoutingSettingsSchema>, string> = {
  threshold: 'least fused score a role needs',
  keywordWeight: "the keyword score's share of the fused score",
  fastPath: 'keyword fast path: a best keyword score at least `score`, ahead of the next by `margin`, is taken without the semantic score; `null` turns it off',
  fieldWeights: 'keyword weight of each text field; a field not named counts 1, one at 0 is not read',
  semanticFields: 'fields embedded for the semantic score',
  modelChoice: 'below `threshold` but at least `floor`, the model picks among the `candidates` best (or none)',
  askModel: 'whether a model that is not scripted may be asked',
  mode: '`keyword` or `semantic` alone (what the bench compares with)',
  recorded: 'candidates kept in a decision (1–50)',
  maxRequestChars: 'longest description routed; longer: `invalid_input`, "a routing request has at most 4000 characters (maxRequestChars); this one has N"',
  maxCandidates: 'most roles routed among; more: `invalid_input`, "the router has N candidates, more than its limit of 10000 (maxCandidates)"',
};

/** The bounds on skills, `createRuntime({ skillLimits })` (docs/skills.md). */
export const skillOptions: Record<Options<typeof SkillLimitsSchema>, string> = {
  maxSkills: 'skills loaded at once; each past it is refused: `not loaded: maxSkills (2000) skills are loaded already`',
  maxSkillFileBytes: 'bytes of a `SKILL.md` (or `troupe.yaml`); a bigger one is refused: `(file): is N bytes, more than maxSkillFileBytes (262144)`',
  maxBodyChars: "characters of a skill's body; a longer one is refused: `(body): is N characters, more than maxBodyChars (50000)`",
  maxFileReadBytes: 'bytes `read_skill_file` returns of one file; it refuses a bigger one: `… is N bytes, more than maxFileReadBytes (262144)`',
  maxActivePerSession:
    'skills active at once in one session of one agent; one more lets the least recently activated go (`skill.deactivated`, reason `maxActivePerSession`)',
  catalogueShare: 'share of the context budget the list of skills may take; skills past it are counted, not listed',
};
