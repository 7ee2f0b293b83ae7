import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRuntime, taskText } from 'troupe';

// Any OpenTelemetry SDK works; this one keeps the spans in memory to print them.
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

// The offline model's playbook: root makes a poet, delegates the haiku to it, lets it go and answers.
const rt = await createRuntime({ tracing: { tracerProvider } });
const answer = await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
console.log(taskText(answer));
await rt.shutdown();
await tracerProvider.forceFlush();

// One trace: the poet's turn hangs under root's delegate_task call.
const spans = exporter.getFinishedSpans();
const print = (parent: string | undefined, depth: number): void => {
  for (const span of spans.filter((one: ReadableSpan) => one.parentSpanContext?.spanId === parent)) {
    console.log(`${'  '.repeat(depth)}${span.name}`);
    print(span.spanContext().spanId, depth + 1);
  }
};
print(undefined, 0);
