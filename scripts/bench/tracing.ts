/**
 * OpenTelemetry tracing (docs/observability.md#traces): the ReAct loop's step traced, with spans
 * going to an exporter that drops them (batched, as `--otel` sends them) and to the SDK's
 * in-memory exporter (each span exported as it ends, as tests read them), against the same loop
 * untraced; rounds alternated in one process. The SDK is the bench's, as it is the CLI's: the
 * library is given a provider, and a context manager is registered for the process, as `--otel`
 * registers one (every side runs under it from the first traced round on).
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import * as thisBuild from '../../src/index.js';
import { alternateRounds } from './alternatedRounds.js';
import { sized } from './benchSize.js';
import { median } from './measure.js';
import { type Loop, startLoopServer, troupeLoop } from './reactLoops.js';
import { type Row, duration } from './report.js';

const schedule = sized({ rounds: 60, warmup: 20 }, { rounds: 2, warmup: 1 });

/** Takes every batch and drops it at once: what tracing costs troupe with an exporter that costs nothing. */
class DroppingExporter extends InMemorySpanExporter {
  override export(_spans: Parameters<SpanExporter['export']>[0], done: Parameters<SpanExporter['export']>[1]): void {
    super.export([], done);
  }
}

type Side = 'off' | 'dropped' | 'memory';

export async function tracingSuite(): Promise<Row[]> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const memory = new InMemorySpanExporter();
  const providers = {
    dropped: new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: new DroppingExporter() })] }),
    memory: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] }),
  };
  const traced = (provider: TracerProvider): typeof thisBuild => ({
    ...thisBuild,
    createRuntime: (options) => thisBuild.createRuntime({ ...options, tracing: { tracerProvider: provider } }),
  });
  const { server } = await startLoopServer();
  try {
    const loops: Record<Side, Loop> = {
      off: await troupeLoop(server, thisBuild),
      dropped: await troupeLoop(server, traced(providers.dropped)),
      memory: await troupeLoop(server, traced(providers.memory)),
    };
    // The in-memory exporter keeps every span: emptied after each of its rounds, untimed.
    const memoryLoop: Loop = { ...loops.memory, teardown: () => loops.memory.teardown().then(() => memory.reset()) };
    const samples = await alternateRounds<Side>(['off', 'dropped', 'memory'], (side) => (side === 'memory' ? memoryLoop : loops[side]), server, schedule);
    for (const loop of Object.values(loops)) await loop.close();
    await Promise.all(Object.values(providers).map((provider) => provider.shutdown()));
    const off = median(samples.off.wall);
    const row = (side: Exclude<Side, 'off'>, what: string, goal: string): Row => {
      const on = median(samples[side].wall);
      const cpu = median(samples[side].cpu) / median(samples.off.cpu);
      return {
        benchmark: `ReAct step traced, ${what} (per model call)`,
        troupe: duration(on / 1000),
        raw: duration(off / 1000),
        ratio: on / off,
        notes: `tracing on against off in one process, rounds alternated (goal ≤ ${goal}); process CPU ${cpu.toFixed(2)}×; medians of ${schedule.rounds} rounds after ${schedule.warmup} warm-up`,
      };
    };
    return [row('dropped', 'spans batched to a no-op exporter', '1.05×'), row('memory', "spans to the SDK's in-memory exporter", '1.2×')];
  } finally {
    context.disable();
    await server.close();
  }
}
