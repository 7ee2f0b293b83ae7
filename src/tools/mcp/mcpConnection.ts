import type { Tracer } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode as McpErrorCode, McpError, type Tool as McpToolDefinition, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Clock, TimerHandle } from '../../clock.js';
import { TroupeError, describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Redactor } from '../../task/index.js';
import type { TraceCarrier } from '../../traceContext.js';
import { troupeVersion } from '../../version.js';
import { type Tool, type ToolResult, errorResult } from '../tool.js';
import { type McpServerConfig, isStdioServer } from './mcpConfig.js';
import { mcpTool, toolResultOf } from './mcpTool.js';
import { McpCallTracer, httpPeer } from './mcpCallTrace.js';

export interface McpConnectionDeps {
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly clock: Clock;
  /** Receives the server's tools each time they are listed (on connection and on `tools/list_changed`). */
  readonly onTools: (tools: readonly Tool[]) => void;
  /** The runtime's tracer: each traced tool call's request gets a client span (docs/observability.md). */
  readonly tracer?: Tracer | undefined;
}

/** Where a connection stands: `down` waits for a restart; `failed` gave up after `maxRestarts`. */
export type McpConnectionState = 'connecting' | 'up' | 'down' | 'failed' | 'closed';

const longestStderrLine = 1_000;

/**
 * One MCP server, kept connected: connected and listed within their timeouts; when the
 * connection is lost (a stdio server that dies, an HTTP server that stops answering) it is
 * restarted after a backoff that doubles, up to `maxRestarts` in a row. While it is down each
 * call of its tools is an error result saying so, at once.
 */
export class McpConnection {
  readonly name: string;
  readonly #config: McpServerConfig;
  readonly #deps: McpConnectionDeps;
  #client: Client | undefined;
  #state: McpConnectionState = 'connecting';
  #lastError = '';
  #restarts = 0;
  #upSince = 0;
  #timer: TimerHandle | undefined;
  readonly #trace: McpCallTracer | undefined;
  /** Settles once the first connection attempt has, whichever way it went. */
  readonly ready: Promise<void>;

  constructor(name: string, config: McpServerConfig, deps: McpConnectionDeps) {
    this.name = name;
    this.#config = config;
    this.#deps = deps;
    const peer = isStdioServer(config) ? ({ transport: 'pipe' } as const) : httpPeer(config.url);
    this.#trace = deps.tracer === undefined ? undefined : new McpCallTracer(deps.tracer, name, peer, deps.redactor);
    this.ready = this.#attempt();
  }

  get state(): McpConnectionState {
    return this.#state;
  }

  /** Why it is down or failed ('' while up). */
  get lastError(): string {
    return this.#state === 'up' ? '' : this.#lastError;
  }

  async #attempt(): Promise<void> {
    this.#state = 'connecting';
    try {
      await this.#connect();
    } catch (error) {
      if (this.state === 'closed') return;
      this.#lastError = this.#deps.redactor.text(describeError(error));
      this.#deps.logger.warn({ server: this.name, error: this.#lastError }, 'an MCP server could not be reached');
      this.#scheduleRestart();
    }
  }

  async #connect(): Promise<void> {
    const { connectTimeoutMs } = this.#config;
    const client = new Client({ name: 'troupe', version: troupeVersion() }, { capabilities: {} });
    this.#client = client;
    client.onclose = () => this.#lost(client, 'the connection closed');
    client.onerror = (error) => this.#deps.logger.debug({ server: this.name, error: describeError(error) }, 'MCP transport error');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.#refresh(client));
    try {
      await client.connect(this.#transport(), { timeout: connectTimeoutMs });
    } catch (error) {
      this.#client = undefined;
      await client.close().catch(() => undefined);
      if (isTimeout(error))
        throw new TroupeError('tool_timeout', `MCP server "${this.name}" did not answer initialize within ${connectTimeoutMs} ms (connectTimeoutMs)`);
      throw error;
    }
    const tools = await this.#list(client);
    // Closed while it connected: what it started is stopped, not kept.
    if (this.state === 'closed') {
      await client.close();
      return;
    }
    this.#deps.onTools(tools);
    this.#state = 'up';
    this.#upSince = this.#deps.clock.now();
  }

  #transport(): Transport {
    const transport = this.#newTransport();
    const trace = this.#trace;
    if (trace === undefined) return transport;
    // Watched for the tracer: each request's JSON-RPC id as it leaves, the version agreed, the HTTP session.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      trace.sent(message);
      return send(message, options);
    };
    const agreed = transport.setProtocolVersion?.bind(transport);
    trace.session = transport instanceof StreamableHTTPClientTransport ? { sessionId: () => transport.sessionId } : {};
    transport.setProtocolVersion = (version) => {
      trace.session.protocolVersion = version;
      agreed?.(version);
    };
    return transport;
  }

  #newTransport(): Transport {
    const config = this.#config;
    if (!isStdioServer(config)) return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      // Its output goes through the (redacting) logger, never straight to this process's stderr.
      stderr: 'pipe',
      // A message larger than a result may be, with room for JSON's escaping, ends the connection.
      maxBufferSize: config.maxResultBytes * 4 + 64 * 1024,
    });
    let pending = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = (lines.pop() ?? '').slice(-longestStderrLine);
      for (const line of lines)
        if (line.trim() !== '') this.#deps.logger.debug({ server: this.name, stderr: line.slice(0, longestStderrLine) }, 'MCP server stderr');
    });
    return transport;
  }

  /** Every page of `tools/list`, within `listTimeoutMs` in all, at most `maxTools` of them. */
  async #list(client: Client): Promise<Tool[]> {
    const { listTimeoutMs, maxTools, trusted, callTimeoutMs, requireApproval } = this.#config;
    const deadline = Date.now() + listTimeoutMs;
    const definitions: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const left = deadline - Date.now();
      let page;
      try {
        if (left <= 0) throw new McpError(McpErrorCode.RequestTimeout, 'out of time');
        page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: left });
      } catch (error) {
        if (isTimeout(error))
          throw new TroupeError('tool_timeout', `MCP server "${this.name}" did not list its tools within ${listTimeoutMs} ms (listTimeoutMs)`);
        throw error;
      }
      definitions.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && definitions.length < maxTools);
    if (definitions.length > maxTools) {
      this.#deps.logger.warn(
        { server: this.name, listed: definitions.length, maxTools },
        `an MCP server lists more tools than maxTools: the first ${maxTools} are kept`,
      );
    }
    const caller = {
      call: (tool: string, args: Record<string, unknown>, signal: AbortSignal, trace: TraceCarrier | undefined) =>
        this.#call(client, tool, args, signal, trace),
    };
    return definitions.slice(0, maxTools).map((definition) => mcpTool(this.name, definition, { trusted, requireApproval, callTimeoutMs, caller }));
  }

  async #refresh(client: Client): Promise<void> {
    if (client !== this.#client || this.#state !== 'up') return;
    try {
      this.#deps.onTools(await this.#list(client));
    } catch (error) {
      this.#deps.logger.warn(
        { server: this.name, error: this.#deps.redactor.text(describeError(error)) },
        'an MCP server changed its tools but could not list them',
      );
    }
  }

  async #call(client: Client, tool: string, args: Record<string, unknown>, signal: AbortSignal, trace: TraceCarrier | undefined): Promise<ToolResult> {
    const { callTimeoutMs, maxResultBytes } = this.#config;
    if (client !== this.#client || this.#state !== 'up') return this.#downResult(tool);
    // The request's own span, its context sent along in `_meta` for the server to continue.
    const span = this.#trace?.start(tool, trace);
    try {
      const request = { name: tool, arguments: args, ...(span === undefined ? {} : { _meta: span.meta }) };
      let result;
      try {
        result = await client.callTool(request, undefined, { timeout: callTimeoutMs, signal });
      } catch (error) {
        span?.failed(error);
        throw error;
      }
      span?.answered(result.isError === true);
      return toolResultOf(result as Parameters<typeof toolResultOf>[0], `${tool} on MCP server "${this.name}"`, {
        maxResultBytes,
        redactor: this.#deps.redactor,
        toolName: tool,
      });
    } catch (error) {
      if (isTimeout(error)) return errorResult(`${tool} on MCP server "${this.name}" timed out after ${callTimeoutMs} ms (callTimeoutMs)`, 'tool_timeout');
      const message = this.#deps.redactor.text(describeError(error));
      // Not an answer of the server's: the connection itself failed, so it is restarted.
      if (!(error instanceof McpError) && !signal.aborted) this.#lost(client, message);
      return errorResult(`${tool} on MCP server "${this.name}" failed: ${message}`, 'tool_error');
    }
  }

  #downResult(tool: string): ToolResult {
    const why = this.#lastError === '' ? '' : ` (${this.#lastError})`;
    const next =
      this.#state === 'failed' ? `it was given up after ${this.#config.maxRestarts} restarts (maxRestarts)` : 'it is being restarted; try again later';
    return errorResult(`${tool}: MCP server "${this.name}" is down${why}; ${next}`, 'tool_error');
  }

  #lost(client: Client, reason: string): void {
    if (client !== this.#client || this.#state === 'closed') return;
    this.#client = undefined;
    void client.close().catch(() => undefined);
    if (this.#state !== 'up') return;
    this.#lastError = reason;
    this.#deps.logger.warn({ server: this.name, reason }, 'lost an MCP server');
    // A server that stayed up a while has its restarts counted afresh.
    if (this.#deps.clock.now() - this.#upSince >= this.#config.maxBackoffMs) this.#restarts = 0;
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    const { maxRestarts, backoffMs, maxBackoffMs } = this.#config;
    if (this.#restarts >= maxRestarts) {
      this.#state = 'failed';
      this.#deps.logger.error({ server: this.name, restarts: this.#restarts, error: this.#lastError }, 'an MCP server is given up (maxRestarts)');
      return;
    }
    this.#state = 'down';
    const delay = Math.min(backoffMs * 2 ** this.#restarts, maxBackoffMs);
    this.#restarts++;
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#state === 'down') void this.#attempt();
    }, delay);
  }

  /** Ends the connection for good: a stdio server's process is stopped (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.#state = 'closed';
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === (McpErrorCode.RequestTimeout as number);
}
