import { z } from 'zod';
import { TroupeError } from '../errors.js';
import type { RecordedTool } from '../replay/index.js';
import { type Tool, defineTool, metaTools } from '../tools/index.js';

/** Tools the runtime registers by itself: a replay has its own, no stand-in is made for them. */
const ownTools: ReadonlySet<string> = new Set([...metaTools.map((tool) => tool.name), 'use_skill', 'read_skill_file']);

/** A tool a replay was not given: it shows the model the recorded definition; the replay hands back its recorded results. */
function standIn(recorded: RecordedTool): Tool {
  const tool = defineTool({
    name: recorded.name,
    description: recorded.description,
    parameters: z.unknown(),
    ...(recorded.annotations === undefined ? {} : { annotations: recorded.annotations }),
    // Reached only for a pure tool, which a replay runs again: it needs the tool's code.
    execute: () =>
      Promise.reject(
        new TroupeError('replay_diverged', `${recorded.name} is pure, so a replay runs it again: give its code with replayRuntime(file, { tools })`),
      ),
  });
  return { ...tool, inputSchema: recorded.parameters };
}

/**
 * The tools a replay registers besides the runtime's own: in the order the run had them, each
 * given tool by its name, a stand-in for each one not given; given tools the run did not have
 * after them (the model then sees other tools than it did, a divergence the replay reports).
 */
export function replayTools(recorded: readonly RecordedTool[], given: readonly Tool[]): Tool[] {
  const byName = new Map(given.map((tool) => [tool.name, tool]));
  const ordered = recorded.filter((tool) => !ownTools.has(tool.name)).map((tool) => byName.get(tool.name) ?? standIn(tool));
  const recordedNames = new Set(recorded.map((tool) => tool.name));
  return [...ordered, ...given.filter((tool) => !recordedNames.has(tool.name))];
}
