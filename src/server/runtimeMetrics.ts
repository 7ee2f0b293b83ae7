import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Observable, Subscription } from 'rxjs';
import type { Measurement, RuntimeGauges } from '../runtime/index.js';
import { providerAndModel } from '../traceNames.js';

// The GenAI client metrics by the OpenTelemetry semantic conventions, as an OTel-to-Prometheus
// exporter names them (dots become underscores, seconds become `_seconds`, `{token}` is dropped),
// with the buckets the conventions advise. The conventions are still in development: the names
// live here, in one place.
const operationDuration = 'gen_ai_client_operation_duration_seconds';
const tokenUsage = 'gen_ai_client_token_usage';
const timeToFirstChunk = 'gen_ai_client_operation_time_to_first_chunk_seconds';
const genAiLabels = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const;
const durationBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** LMDB commits take a fraction of a millisecond to a few with the fsync; a slow disk, seconds. */
const commitBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The provider and model labels of a model client's name. */
function modelLabels(name: string): { gen_ai_provider_name: string; gen_ai_request_model: string } {
  const { provider, model } = providerAndModel(name);
  return { gen_ai_provider_name: provider, gen_ai_request_model: model };
}

const histogram = (registry: Registry, name: string, help: string, shape: { labelNames: readonly string[]; buckets: number[] }): Histogram =>
  new Histogram({ name, help, ...shape, registers: [registry] });

const gauge = (registry: Registry, name: string, help: string, labelNames: readonly string[] = []): Gauge =>
  new Gauge({ name, help, labelNames, registers: [registry] });

/** What the metrics are read from: a runtime, or a node's host (`NodeHost`). */
export interface MetricsSource {
  gauges(): RuntimeGauges;
  measurements(): Observable<Measurement>;
}

/**
 * The runtime's metrics in `registry`: histograms fed by its measurements (model calls, store
 * commits) from now on, and gauges read from `rt.gauges()` when `refresh` is called, just before
 * each scrape, so a society of 10,000 agents costs nothing between scrapes. `close` stops the feed.
 */
export function runtimeMetrics(runtime: MetricsSource, registry: Registry): { refresh(): void; close(): void } {
  const duration = histogram(registry, operationDuration, 'Duration of GenAI operations (model calls, each attempt), in seconds', {
    labelNames: [...genAiLabels, 'error_type'],
    buckets: durationBuckets,
  });
  const tokens = histogram(registry, tokenUsage, 'Tokens used per GenAI operation, as the provider reported them, by token type (input, output)', {
    labelNames: [...genAiLabels, 'gen_ai_token_type'],
    buckets: tokenBuckets,
  });
  const firstChunk = histogram(registry, timeToFirstChunk, 'Time from the start of a streamed model call to the first chunk of its reply, in seconds', {
    labelNames: genAiLabels,
    buckets: durationBuckets,
  });
  const commits = histogram(
    registry,
    'troupe_store_commit_duration_seconds',
    'Time an org store (LMDB) write takes to become durable: commit and fsync, in seconds',
    {
      labelNames: [],
      buckets: commitBuckets,
    },
  );
  const subscription: Subscription = runtime.measurements().subscribe((measure: Measurement) => {
    if (measure.type === 'store.commit') {
      commits.observe(measure.seconds);
      return;
    }
    const labels = { gen_ai_operation_name: measure.operation, ...modelLabels(measure.model) };
    duration.observe(measure.errorType === null ? labels : { ...labels, error_type: measure.errorType }, measure.seconds);
    if (measure.firstChunkSeconds !== null) firstChunk.observe(labels, measure.firstChunkSeconds);
    if (measure.usage === null) return;
    tokens.observe({ ...labels, gen_ai_token_type: 'input' }, measure.usage.promptTokens);
    tokens.observe({ ...labels, gen_ai_token_type: 'output' }, measure.usage.completionTokens);
  });
  return { refresh: gaugesOf(runtime, registry), close: () => subscription.unsubscribe() };
}

type Read = (now: RuntimeGauges, memory: NodeJS.MemoryUsage) => number;

/** The unlabelled gauges: name, help, and where each is read from in `rt.gauges()` (or the process's memory usage). */
const plainGauges: readonly (readonly [string, string, Read])[] = [
  ['troupe_mailbox_tasks', 'Tasks waiting in the mailboxes of the agents running here', (now) => now.mailbox.tasks],
  ['troupe_mailbox_max_tasks', 'Tasks waiting in the fullest mailbox', (now) => now.mailbox.maxTasks],
  ['troupe_active_lanes', 'Turns in progress (one lane per session an agent serves)', (now) => now.lanes],
  ['troupe_model_calls_in_flight', 'Model calls holding a slot of the call limiter (maxConcurrentModelCalls)', (now) => now.modelCalls.running],
  ['troupe_model_calls_queued', 'Model calls waiting for a slot (at most maxQueuedModelCalls)', (now) => now.modelCalls.queued],
  ['troupe_approvals_pending', 'Tool calls waiting for a person’s decision', (now) => now.approvalsPending],
  ['troupe_memories_open', 'Agent memories open', (now) => now.memory.open],
  ['troupe_graphs_open', 'Graph memories open (agents’ and the society’s)', (now) => now.graphs.open],
  ['troupe_graph_nodes', 'Nodes in the open graph memories', (now) => now.graphs.nodes],
  ['troupe_graph_edges', 'Edges in the open graph memories', (now) => now.graphs.edges],
  ['process_resident_memory_bytes', 'Resident memory size of the process, in bytes', (_, memory) => memory.rss],
  ['nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes', (_, memory) => memory.heapUsed],
];

/** The gauges read from the runtime, and the function that sets them all from one `rt.gauges()`. */
function gaugesOf(runtime: MetricsSource, registry: Registry): () => void {
  const agents = gauge(registry, 'troupe_agents', 'Live agents by state (restoring: restored, not started yet; remote: on another node)', ['state']);
  const entries = gauge(registry, 'troupe_memory_entries', 'Entries in the open agent memories, by tier (l4: long-term facts)', ['tier']);
  const plain = plainGauges.map(([name, help, read]) => [gauge(registry, name, help), read] as const);
  return () => {
    const now = runtime.gauges();
    const memory = process.memoryUsage();
    for (const [state, count] of Object.entries(now.agents)) agents.set({ state }, count);
    for (const [tier, count] of Object.entries(now.memory.entries)) entries.set({ tier }, count);
    for (const [plainGauge, read] of plain) plainGauge.set(read(now, memory));
  };
}
