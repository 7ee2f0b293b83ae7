import { TroupeError } from '../errors.js';
import type { ToolDefinition, ToolPolicy } from '../task/index.js';
import { type Tool, type ToolContext, type ToolResult, parametersJsonSchema } from './tool.js';

/**
 * Registers `listener` for the caller giving up on a tool call (its timeout, its caller's abort),
 * called with why, at once if it already has; returns what cancels it. What `context.signal` tells
 * too, without making the tool's signal, which most tools never read.
 */
export type WhenAbandoned = (listener: (reason: unknown) => void) => () => void;

/** How a registry runs a tool's `execute`: as it is, unless a recording or a replay stands between. */
export type ToolExecution = (tool: Tool, args: unknown, context: ToolContext, whenAbandoned?: WhenAbandoned) => Promise<ToolResult>;

/** The tools shared by a whole society (children share their parent's registry). */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #definitions = new Map<string, ToolDefinition>();
  // What each policy lets a model see, asked for before every model call: kept until a tool is added.
  #seen = new WeakMap<ToolPolicy, readonly ToolDefinition[]>();
  #unrestricted: readonly ToolDefinition[] | undefined;
  #execution: ToolExecution | undefined;

  register(...tools: Tool[]): this {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new TroupeError('invalid_input', `a tool named ${tool.name} is already registered`);
      this.#tools.set(tool.name, tool);
      this.#definitions.set(tool.name, {
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema === undefined ? parametersJsonSchema(tool.parameters) : { ...tool.inputSchema },
      });
    }
    return this.#changed();
  }

  /** Takes tools out (an MCP server's, when its list changes); a name not registered is ignored. */
  unregister(...names: string[]): this {
    for (const name of names) {
      this.#tools.delete(name);
      this.#definitions.delete(name);
    }
    return this.#changed();
  }

  #changed(): this {
    this.#seen = new WeakMap();
    this.#unrestricted = undefined;
    return this;
  }

  /** From now on every call of this registry's tools runs through `execution` (a recording's or a replay's), which may call `tool.execute` or not. */
  executeThrough(execution: ToolExecution): this {
    if (this.#execution !== undefined) throw new TroupeError('invalid_input', 'this tool registry already runs its tools through a recording or a replay');
    this.#execution = execution;
    return this;
  }

  /** Runs `tool` (one of this registry's) with checked arguments, as `executeThrough` said. */
  execute(tool: Tool, args: unknown, context: ToolContext, whenAbandoned?: WhenAbandoned): Promise<ToolResult> {
    return this.#execution === undefined ? tool.execute(args, context) : this.#execution(tool, args, context, whenAbandoned);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Whether `policy` lets a role use the tool `name`. */
  allows(policy: ToolPolicy | undefined, name: string): boolean {
    if (!this.#tools.has(name)) return false;
    if (policy?.allow !== undefined && !policy.allow.includes(name)) return false;
    return !(policy?.deny?.includes(name) ?? false);
  }

  /** The definitions a model sees, filtered by a role's policy; the same array until a tool is added. */
  definitions(policy?: ToolPolicy): readonly ToolDefinition[] {
    if (policy === undefined) return (this.#unrestricted ??= Object.freeze([...this.#definitions.values()]));
    let specs = this.#seen.get(policy);
    if (specs === undefined) {
      specs = Object.freeze([...this.#definitions.values()].filter((definition) => this.allows(policy, definition.name)));
      this.#seen.set(policy, specs);
    }
    return specs;
  }
}
