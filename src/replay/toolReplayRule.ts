import type { Redactor } from '../task/index.js';
import { type Tool, type ToolResult, metaTools, toolAnnotations } from '../tools/index.js';
import type { RecordedToolResult } from './recordingFormat.js';

/** The society's own tools: they act on the society a replay rebuilds, so they run again there. */
const societyTools: ReadonlySet<Tool> = new Set(metaTools);
/** `use_skill` activates a skill in the society's skill hub (its tool steps are recorded one by one). */
const societyToolNames: ReadonlySet<string> = new Set(['use_skill']);

/**
 * Whether a tool is pure: it declares that it changes nothing (`readOnly`), gives the same result
 * for the same arguments (`idempotent`) and reaches nothing outside the society (`openWorld: false`).
 */
function isPureTool(tool: Tool): boolean {
  const annotations = toolAnnotations(tool);
  return annotations.readOnly && annotations.idempotent && !annotations.openWorld;
}

/**
 * The rule of what a recording keeps of tool calls: a call of a pure tool or of one of the
 * society's own tools (the meta-tools, `use_skill`) runs again in a replay, which rebuilds the
 * society those tools read and change; a call of any other tool (a tool that declares nothing,
 * every MCP tool but a pure one) is recorded, and a replay hands back its result without running it.
 */
export function runsAgainInReplay(tool: Tool): boolean {
  return societyTools.has(tool) || societyToolNames.has(tool.name) || isPureTool(tool);
}

/** A tool's result as a recording keeps it: text redacted, artifact bytes as base64. */
export function recordedResult(result: ToolResult, redactor: Redactor): RecordedToolResult {
  return {
    content: redactor.text(result.content),
    ...(result.metadata === undefined ? {} : { metadata: redactor.value(result.metadata) as RecordedToolResult['metadata'] }),
    ...(result.artifacts === undefined
      ? {}
      : {
          artifacts: result.artifacts.map(({ name, mediaType, content }) =>
            typeof content === 'string'
              ? { name, mediaType, text: redactor.text(content) }
              : { name, mediaType, base64: Buffer.from(content).toString('base64') },
          ),
        }),
    ...(result.isError === undefined ? {} : { isError: result.isError }),
  };
}

/** The ToolResult a recorded one stands for. */
export function resultOf(recorded: RecordedToolResult): ToolResult {
  return {
    content: recorded.content,
    ...(recorded.metadata === undefined ? {} : { metadata: recorded.metadata }),
    ...(recorded.artifacts === undefined
      ? {}
      : {
          artifacts: recorded.artifacts.map(({ name, mediaType, text, base64 }) => ({
            name,
            mediaType,
            content: text ?? new Uint8Array(Buffer.from(base64 ?? '', 'base64')),
          })),
        }),
    ...(recorded.isError === undefined ? {} : { isError: recorded.isError }),
  };
}
