import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NodeDirectory } from '../../src/bus/index.js';
import { systemClock } from '../../src/clock.js';
import { openTraceExport } from '../../src/cli/traceExport.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { runCli } from '../support/cliProcess.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../support/natsBus.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { freePort } from '../support/freePort.js';
import { readScrape } from '../support/prometheusText.js';
import { ServeProcess } from '../support/serveProcess.js';

// `--otel` from real CLI processes to a real OTLP/HTTP receiver on loopback; and a society over
// two processes on NATS, whose node's spans join the owner's trace through the Tasks it is sent.

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(() => receiver.close());

const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter((span) => span.name === name);

it("troupe run --otel exports the run's spans as OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_ENDPOINT, flushed before it exits", async () => {
  const result = await runCli(['run', 'write a haiku about rain', '--memory', '--no-status', '--otel'], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain(`exporting traces to ${receiver.url}/v1/traces`);
  const spans = receiver.spans.filter((span) => span.service === 'troupe run');
  const [root] = named(spans, 'invoke_agent root');
  const [delegation] = named(spans, 'execute_tool delegate_task');
  const [poet] = named(spans, 'invoke_agent poet');
  expect(root?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'root' });
  expect(delegation?.parentSpanId).toBe(root?.spanId);
  expect(poet?.parentSpanId).toBe(delegation?.spanId);
  expect(named(spans, 'chat offline-scripted').length).toBeGreaterThanOrEqual(3);
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  expect(receiver.contentTypes).toContain('application/json');
});

it("--otel registers its provider globally: a span of the process's own code (trace.getTracer) goes to the same export; close unregisters it", async () => {
  const opened = await openTraceExport({ otel: true }, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'own-code' }, 'troupe run');
  trace.getTracer('the-app').startSpan('my own work').end();
  await opened?.close();
  expect(receiver.spans.filter((span) => span.service === 'own-code').map((span) => span.name)).toEqual(['my own work']);
  expect(trace.getTracer('the-app').startSpan('after').isRecording()).toBe(false);
});

const natsServer = natsServerForFile();
const later = cleanupAfterEach();
const natsBus = natsBusesAfterEach();

describeWithNatsServer('a society over two processes on a real nats-server', () => {
  it(
    "the node's spans (troupe node --otel) join the owner's trace, under its delegating tool call; its /metrics shows its model calls",
    { timeout: 120_000 },
    async () => {
      const exporter = new InMemorySpanExporter();
      const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
      const { bus } = await natsBus({ servers: natsServer().url, society: 'traced' });
      const directory = new NodeDirectory(bus, { clock: systemClock, logger: new MemoryLogger() });
      later(async () => {
        directory.close();
        await Promise.resolve();
      });
      // The owner runs the offline model's playbook: a poet role, a poet spawned (placed on the node), delegated to.
      const rt = await createRuntime({ bus, nodes: { directory }, logger: new MemoryLogger(), tracing: { tracerProvider: provider } });
      const metricsPort = await freePort();
      const node = new ServeProcess(
        ['--nats', natsServer().url, '--society', 'traced', '--roles', 'poet', '--name', 'node-traced', '--otel', '--metrics-port', String(metricsPort)],
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
          TROUPE_TOKEN: 'node-metrics-token',
        },
        'node',
      );
      later(async () => {
        node.signal('SIGKILL');
        await node.done;
      });
      await new Promise<void>((resolve) => {
        const joined = directory.changes$.subscribe(({ change }) => {
          if (change === 'joined') {
            joined.unsubscribe();
            resolve();
          }
        });
      });
      const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 60_000 });
      expect(answer.status).toBe('completed');
      // The poet's model calls were the node's: its own /metrics counts them (the token required).
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      expect((await fetch(metricsUrl)).status).toBe(401);
      const scrape = readScrape(await (await fetch(metricsUrl, { headers: { authorization: 'Bearer node-metrics-token' } })).text());
      const offline = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'offline-scripted', gen_ai_request_model: 'offline-scripted' };
      expect(scrape.value('gen_ai_client_operation_duration_seconds_count', offline)).toBeGreaterThanOrEqual(1);
      expect(scrape.types.get('troupe_agents')).toBe('GAUGE');
      await rt.shutdown({ drainTimeoutMs: 0 });
      // The node sends what it batched as it stops.
      node.signal('SIGTERM');
      expect(await node.done).toBe(0);

      await provider.forceFlush();
      const owner = exporter.getFinishedSpans();
      const delegation = owner.find((span) => span.name === 'execute_tool delegate_task') as ReadableSpan;
      expect(owner.some((span) => span.name === 'invoke_agent poet')).toBe(false);
      const [poet] = named(receiver.spans, 'invoke_agent poet').filter((span) => span.service === 'troupe node');
      expect(poet).toMatchObject({ traceId: delegation.spanContext().traceId, parentSpanId: delegation.spanContext().spanId, kind: 1 });
      expect(poet?.attributes).toMatchObject({ 'gen_ai.agent.name': 'poet', 'gen_ai.conversation.id': answer.sessionId });
      const [chat] = named(receiver.spans, 'chat offline-scripted').filter((span) => span.parentSpanId === poet?.spanId);
      expect(chat).toMatchObject({ traceId: delegation.spanContext().traceId, kind: 3 });
    },
  );
});
