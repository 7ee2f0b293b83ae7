import { TroupeError, describeError } from '../../errors.js';
import type { ArtifactRef } from '../../org/index.js';
import { previewOf } from '../../org/artifacts/artifactLimits.js';
import { Actions, type JsonValue, type Task, type ToolCall, observationTask } from '../../task/index.js';
import type { Artifact, ToolResult } from '../../tools/index.js';
import type { Agent } from './agent.js';

/** An artifact as the model sees it: a reference, with at most `artifactPreviewChars` of a text one. */
type ModelReference = Pick<ArtifactRef, 'id' | 'name' | 'mediaType' | 'size'> & { preview?: string };

/**
 * What the model reads of a tool call's result, once its artifacts are stored: the tool's text,
 * then each artifact by reference (id, name, media type, size, a bounded preview of text), never
 * its content; an artifact a limit refused is named with the reason, and the Task goes on. When
 * the result has metadata or artifacts, a `node.tool_result` observation carries them (artifacts by
 * reference) to the bus and the message log.
 */
export async function keepToolResult(agent: Agent, task: Task, call: ToolCall, result: ToolResult): Promise<ToolResult> {
  if (result.metadata === undefined && (result.artifacts === undefined || result.artifacts.length === 0)) return result;
  const stored: ArtifactRef[] = [];
  const shown: ModelReference[] = [];
  const refused: string[] = [];
  for (const artifact of result.artifacts ?? []) {
    const kept = await store(agent, task, artifact);
    if (typeof kept === 'string') {
      refused.push(kept);
      continue;
    }
    stored.push(kept);
    const preview = previewOf(artifact.content, artifact.mediaType, agent.env.config.artifactPreviewChars);
    const { id, name, mediaType, size } = kept;
    shown.push(preview === undefined ? { id, name, mediaType, size } : { id, name, mediaType, size, preview });
  }
  observe(agent, task, call, result, stored, refused);
  if (shown.length === 0 && refused.length === 0) return result;
  const lines = [result.content];
  if (shown.length > 0) lines.push('', 'Artifacts (stored apart, shown by reference):', ...shown.map((reference) => JSON.stringify(reference)));
  if (refused.length > 0) lines.push('', ...refused.map((reason) => `Not stored: ${reason}`));
  return { ...result, content: lines.join('\n') };
}

/** The artifact's reference, or why it was not stored. */
async function store(agent: Agent, task: Task, artifact: Artifact): Promise<ArtifactRef | string> {
  try {
    return await agent.env.artifacts.put({ ...artifact, taskId: task.id, sessionId: task.sessionId });
  } catch (error) {
    if (error instanceof TroupeError && error.code === 'artifact_limit') return error.message;
    agent.env.logger.error({ agentId: agent.id, taskId: task.id, artifact: artifact.name, error: describeError(error) }, 'an artifact could not be stored');
    return `artifact "${artifact.name}" could not be stored (${describeError(error)})`;
  }
}

function observe(agent: Agent, task: Task, call: ToolCall, result: ToolResult, stored: readonly ArtifactRef[], refused: readonly string[]): void {
  const { bus } = agent.env;
  if (!bus.wants('observer', Actions.toolResult)) return;
  const parameters: Record<string, JsonValue> = { tool: call.name, callId: call.id };
  if (result.metadata !== undefined) parameters['metadata'] = result.metadata;
  if (stored.length > 0) parameters['artifacts'] = stored.map(({ id, name, mediaType, size }) => ({ id, name, mediaType, size }));
  if (refused.length > 0) parameters['refused'] = [...refused];
  // The metadata is ToolResultSchema's output (runToolCall checked the result), the rest the runtime's own.
  bus.publish(observationTask({ from: agent.id, about: task, action: Actions.toolResult, parameters }, agent.env));
}
