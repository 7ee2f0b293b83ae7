import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

// An OTLP/HTTP collector of traces on loopback: what `--otel` exports to, decoded from the JSON
// the SDK's exporter sends (`resourceSpans[].scopeSpans[].spans[]`, ids as hex).

const AnyValueSchema = z.object({ stringValue: z.string().optional(), intValue: z.union([z.string(), z.number()]).optional() }).loose();
const KeyValuesSchema = z.array(z.object({ key: z.string(), value: AnyValueSchema }));
const ExportSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: KeyValuesSchema }).optional(),
      scopeSpans: z.array(
        z.object({
          spans: z.array(
            z.object({
              traceId: z.string(),
              spanId: z.string(),
              parentSpanId: z.string().optional(),
              name: z.string(),
              kind: z.number(),
              attributes: KeyValuesSchema,
            }),
          ),
        }),
      ),
    }),
  ),
});

/** A span as received: its ids, name, kind, attributes (strings and integers) and its resource's `service.name`. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | undefined>>;
  readonly service: string | undefined;
}

const valueOf = (value: z.infer<typeof AnyValueSchema>): string | number | undefined =>
  value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** The content type of every export received. */
  readonly contentTypes: string[] = [];
  readonly #server: Server;
  #changed = (): void => undefined;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        receiver.contentTypes.push(request.headers['content-type'] ?? '');
        receiver.#take(ExportSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves once `condition` holds, checked after every export received (no timers). */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      this.#changed = () => {
        if (condition()) resolve();
      };
      this.#changed();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #take(body: z.infer<typeof ExportSchema>): void {
    for (const { resource, scopeSpans } of body.resourceSpans) {
      const service = resource?.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue;
      for (const { spans } of scopeSpans) {
        for (const span of spans) {
          const attributes = Object.fromEntries(span.attributes.map(({ key, value }) => [key, valueOf(value)]));
          this.spans.push({ ...span, parentSpanId: span.parentSpanId === '' ? undefined : span.parentSpanId, attributes, service });
        }
      }
    }
    this.#changed();
  }
}
