import type { ToolCall, ToolPolicy } from '../../task/index.js';
import { type ToolRegistry, toolAnnotations } from '../../tools/index.js';

/**
 * Whether running `calls` may change the world in a way that must not happen twice: some call
 * names a tool the policy lets run that is neither read-only nor idempotent. A call to a tool
 * that is not registered or not allowed runs nothing (it gets an error result), so it changes
 * nothing; a tool that declares nothing is taken to change things (MCP's defaults).
 */
export function changesTheWorld(calls: readonly ToolCall[], registry: ToolRegistry, policy: ToolPolicy | undefined): boolean {
  return calls.some((call) => {
    if (!registry.allows(policy, call.name)) return false;
    const tool = registry.get(call.name);
    if (tool === undefined) return false;
    const { readOnly, idempotent } = toolAnnotations(tool);
    return !readOnly && !idempotent;
  });
}
