import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TroupeError } from '../../src/errors.js';
import { type Tool, ToolAnnotationsSchema, defineTool, metaTools, remoteTool, toolAnnotations, toolFromFunction } from '../../src/tools/index.js';
import { runCli } from '../support/cliProcess.js';

const execute = async (): Promise<{ content: string }> => ({ content: 'ok' });
const parameters = z.object({});

describe('tool annotations', () => {
  it("a tool that declares nothing gets MCP's defaults: not read-only, destructive, not idempotent, open world", () => {
    const tool = defineTool({ name: 'plain', description: 'd', parameters, execute });
    expect(toolAnnotations(tool)).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
  });

  it('a read-only tool is not destructive unless it says so, and the rest keep their defaults', () => {
    const tool = defineTool({ name: 'look', description: 'd', parameters, annotations: { readOnly: true }, execute });
    expect(toolAnnotations(tool)).toEqual({ readOnly: true, destructive: false, idempotent: false, openWorld: true });
  });

  it('defineTool, toolFromFunction and remoteTool carry what was declared', () => {
    const annotations = { destructive: false, idempotent: true, openWorld: false };
    const defined = defineTool({ name: 'a', description: 'd', parameters, annotations, execute });
    const fromFunction = toolFromFunction(() => 'x', { name: 'b', description: 'd', parameters, annotations });
    const remote = remoteTool({ name: 'c', description: 'd', parameters, provider: 'tools', annotations });
    for (const tool of [defined, fromFunction, remote] as Tool[]) {
      expect(toolAnnotations(tool)).toEqual({ readOnly: false, destructive: false, idempotent: true, openWorld: false });
    }
  });

  it('an unknown field or a read-only destructive tool is refused, naming the tool and the field', () => {
    const unknownField = (): unknown => defineTool({ name: 'x', description: 'd', parameters, annotations: { readonly: true } as never, execute });
    expect(unknownField).toThrow(TroupeError);
    expect(unknownField).toThrow(/^tool "x": annotations: .*readonly.*known: readOnly, destructive, idempotent, openWorld/);
    const contradiction = (): unknown =>
      toolFromFunction(() => 'x', { name: 'y', description: 'd', parameters, annotations: { readOnly: true, destructive: true } });
    expect(contradiction).toThrow(/^tool "y": annotations\.destructive: a read-only tool cannot be destructive/);
    expect(ToolAnnotationsSchema.safeParse({ openWorld: 'yes' }).success).toBe(false);
  });

  it('every meta-tool is annotated truthfully', () => {
    const byName = Object.fromEntries(metaTools.map((tool) => [tool.name, toolAnnotations(tool)]));
    expect(byName['search_memory']).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
    expect(byName['spawn_agent']?.readOnly).toBe(false);
    expect(byName['terminate_agent']).toMatchObject({ destructive: true, idempotent: true, openWorld: false });
    expect(byName['delegate_task']).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true });
    // The graph's: explore only reads; a note or an event added again is another node; a link or a status given again changes nothing more.
    expect(byName['explore']).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
    for (const adds of ['add_note', 'create_event']) expect(byName[adds]).toEqual({ readOnly: false, destructive: false, idempotent: false, openWorld: false });
    expect(byName['link_nodes']).toEqual({ readOnly: false, destructive: false, idempotent: true, openWorld: false });
    expect(byName['update_event_status']).toEqual({ readOnly: false, destructive: true, idempotent: true, openWorld: false });
    // None is left to the defaults by accident.
    for (const tool of metaTools) expect(tool.annotations, tool.name).toBeDefined();
  });
});

describe('troupe tools', () => {
  it('--json lists every meta-tool with its source and resolved annotations', async () => {
    const result = await runCli(['tools', '--json']);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as { name: string; source: string; annotations: Record<string, boolean> }[];
    expect(rows.map((row) => row.name)).toEqual(metaTools.map((tool) => tool.name));
    expect(rows.find((row) => row.name === 'search_memory')).toMatchObject({
      source: 'meta',
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    });
  });

  it('prints a table with the annotations as flags', async () => {
    const result = await runCli(['tools']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^search_memory\s+meta\s+r-i-\s+Search your long-term memory/m);
    expect(result.stdout).toMatch(/^spawn_agent\s+meta\s+----\s/m);
  });
});
