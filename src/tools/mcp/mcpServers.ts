import type { Tracer } from '@opentelemetry/api';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Redactor } from '../../task/index.js';
import type { ToolRegistry } from '../registry.js';
import type { Tool } from '../tool.js';
import type { McpServerConfig } from './mcpConfig.js';
import type { McpConnection, McpConnectionState } from './mcpConnection.js';

export interface McpServersDeps {
  /** Where the servers' tools are registered (and replaced when a server's list changes). */
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly clock: Clock;
  /** The runtime's tracer, for the client spans of the servers' tool calls. */
  readonly tracer?: Tracer | undefined;
}

/** How one server stands, for `troupe tools` and the logs. */
export interface McpServerStatus {
  readonly name: string;
  readonly state: McpConnectionState;
  readonly error: string;
  readonly tools: number;
}

/**
 * The MCP servers of a runtime: each kept connected (see `McpConnection`), its tools in the
 * shared registry under `<server>__<tool>`. A server that could not be reached at start adds
 * its tools once it can; one whose tool names clash with a tool already registered loses those.
 */
export class McpServers {
  readonly #connections: McpConnection[] = [];
  readonly #owned = new Map<string, readonly Tool[]>();
  readonly #deps: McpServersDeps;

  private constructor(deps: McpServersDeps) {
    this.#deps = deps;
  }

  /** Connects every server, resolving once each first attempt has settled (a server that failed is retried in the background). */
  static async connect(servers: Readonly<Record<string, McpServerConfig>>, deps: McpServersDeps): Promise<McpServers> {
    const set = new McpServers(deps);
    if (Object.keys(servers).length === 0) return set;
    // The MCP SDK (and the JSON Schema validator it brings) is a third of a runtime's start-up:
    // loaded only by a runtime that has servers to reach.
    const { McpConnection } = await import('./mcpConnection.js');
    for (const [name, config] of Object.entries(servers)) {
      set.#connections.push(new McpConnection(name, config, { ...deps, onTools: (tools) => set.#replace(name, tools) }));
    }
    await Promise.all(set.#connections.map((connection) => connection.ready));
    return set;
  }

  #replace(server: string, tools: readonly Tool[]): void {
    const { registry, logger } = this.#deps;
    registry.unregister(...(this.#owned.get(server) ?? []).map((tool) => tool.name));
    const kept: Tool[] = [];
    for (const tool of tools) {
      if (registry.get(tool.name) !== undefined || kept.some((other) => other.name === tool.name)) {
        logger.warn({ server, tool: tool.name }, 'an MCP tool is left out: a tool of that name is already registered');
        continue;
      }
      kept.push(tool);
    }
    registry.register(...kept);
    this.#owned.set(server, kept);
  }

  /** Every MCP tool registered now. */
  tools(): Tool[] {
    return [...this.#owned.values()].flat();
  }

  status(): McpServerStatus[] {
    return this.#connections.map((connection) => ({
      name: connection.name,
      state: connection.state,
      error: connection.lastError,
      tools: this.#owned.get(connection.name)?.length ?? 0,
    }));
  }

  /** Closes every connection; stdio servers' processes are stopped. Their tools stay registered and answer that the server is down. */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }
}
