import { Option } from 'commander';
import type { TracingOptions } from '../runtime/index.js';
import { troupeVersion } from '../version.js';
import type { CliEnv } from './cliIo.js';

/** `--otel` and `--otel-content`, as `run`, `serve` and `node` take them. */
export interface OtelFlags {
  /** Export traces over OTLP/HTTP (also on when an `OTEL_EXPORTER_OTLP_*ENDPOINT` variable is set). */
  readonly otel?: boolean;
  /** Put prompts, replies and tool arguments and results on the spans, redacted of secrets. */
  readonly otelContent?: boolean;
}

export function otelOptions(): Option[] {
  return [
    new Option(
      '--otel',
      'export OpenTelemetry traces over OTLP/HTTP (to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, or localhost:4318)',
    ),
    new Option('--otel-content', 'with --otel: put prompts, replies and tool arguments and results on the spans (redacted of secrets)'),
  ];
}

/** The flags commander parsed, as the commands take them. */
export function otelFlags(given: { otel?: boolean; otelContent?: boolean }): OtelFlags {
  return { ...(given.otel === true ? { otel: true } : {}), ...(given.otelContent === true ? { otelContent: true } : {}) };
}

/** Where spans go when nothing says where: an OpenTelemetry Collector on this machine. */
const defaultTracesUrl = 'http://localhost:4318/v1/traces';

/**
 * The OTLP/HTTP traces URL the standard variables name: the traces endpoint as given, or the
 * general endpoint with `/v1/traces` added (the exporters' rule); undefined when neither is set.
 */
function tracesUrlOf(env: CliEnv): string | undefined {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (traces !== undefined && traces !== '') return traces;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (base === undefined || base === '') return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** An export the CLI opened: what the runtime traces with, and the flush to await before the process ends. */
export interface TraceExport {
  readonly url: string;
  readonly tracing: TracingOptions;
  /** Sends what is still batched and stops the export. */
  close(): Promise<void>;
}

/**
 * Spans batched and sent over OTLP/HTTP (JSON) by the SDK, when `--otel` or an endpoint variable
 * asks for it (and `OTEL_SDK_DISABLED` does not say otherwise); undefined otherwise. The SDK is
 * the CLI's: the library only ever calls the OpenTelemetry API. It is loaded here, when asked
 * for, and registered for the process as its global tracer provider and context manager, so a
 * span started inside a tool (the tool's own, an instrumented HTTP client's) is exported too and
 * hangs under that tool call's span. `close` flushes and unregisters them.
 */
export async function openTraceExport(flags: OtelFlags, env: CliEnv, service: string): Promise<TraceExport | undefined> {
  const named = tracesUrlOf(env);
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true' || (flags.otel !== true && named === undefined)) return undefined;
  const [{ context, trace }, { AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, TracerProvider }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
    ]);
  const url = named ?? defaultTracesUrl;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env['OTEL_SERVICE_NAME'] ?? service, 'service.version': troupeVersion() }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // Global too, so spans of the process's own code (`trace.getTracer()` in a tool, an
  // instrumentation) go to the same export; one registered already (an SDK preloaded) stays.
  const global = trace.setGlobalTracerProvider(provider);
  return {
    url,
    tracing: { tracerProvider: provider, ...(flags.otelContent === true ? { content: true } : {}) },
    close: async () => {
      await provider.shutdown();
      if (global) trace.disable();
      context.disable();
    },
  };
}
