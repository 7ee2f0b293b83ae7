import { describe, expect, it } from 'vitest';
import { type GraphMemory, type GraphNode, type ReadonlyGraph, blockersOf, subtasksOf } from '../../src/graph/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel, sequentialIds } from '../../src/testing.js';
import { lastToolResult, scriptByRole } from '../support/scriptByRole.js';
import { defineTool } from '../../src/tools/index.js';
import { z } from 'zod';

// The society's own work in its agents' graphs, with no model call (issue 33, point 5): the
// Tasks an agent takes and gives are events, a plan's steps a depends_on chain part of the Task
// planned for, statuses follow the Tasks', and answers are notes the events produce.

/** Root plans, creates a poet, delegates the haiku to it and answers; the poet answers once. */
function planningSociety() {
  return scriptByRole({
    root: [
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: { goal: 'a haiku', steps: [{ title: 'find a poet' }, { title: 'ask for it', detail: 'about rain' }, { title: 'answer' }] },
          },
        ],
      },
      { toolCalls: [{ name: 'create_role', arguments: { name: 'poet', prompt: 'You write haiku.' } }] },
      { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] },
      (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'write a haiku about rain' } }] }),
      { text: 'Rain on the roof, soft.' },
    ],
    poet: [{ text: 'Rain on the roof, soft.' }],
  });
}

/** The notes event `id` produces. */
function produced(graph: ReadonlyGraph, id: string): GraphNode[] {
  return graph.outEdges(id, 'produces').flatMap((edge) => graph.node(edge.to) ?? []);
}

async function settled(memory: GraphMemory): Promise<ReadonlyGraph> {
  await memory.flushed();
  return memory.graph;
}

describe("the society's work in its agents' graphs", () => {
  it("An offline run in which the root's plan becomes depends_on events and the child's answer a note produces-linked to its event", async () => {
    const script = planningSociety();
    const model = new ScriptedModel(Array.from({ length: 6 }, () => script.reply));
    const rt = await createRuntime({ model, ids: sequentialIds(), logger: new MemoryLogger() });
    const taskId = await rt.submit('write me a haiku');
    expect((await rt.waitForAnswer(taskId, { timeoutMs: 20_000 })).status).toBe('completed');
    expect(script.remaining()).toEqual({ root: 0, poet: 0 });
    // No model call beyond the script's: recording the work asked the model nothing.
    expect(model.requests).toHaveLength(6);

    const root = await settled(await rt.graphMemory('root'));
    const asked = root.node(taskId);
    expect(asked).toMatchObject({ kind: 'event', content: 'write me a haiku', status: 'done', sessionId: taskId, metadata: { work: 'task', from: 'user' } });
    // The plan: three events part of the Task planned for, each after the one before.
    const subtasks = subtasksOf(root, taskId);
    const steps = subtasks.filter((event) => event.metadata['work'] === 'plan_step').sort((a, b) => Number(a.metadata['index']) - Number(b.metadata['index']));
    expect(steps.map((step) => step.content)).toEqual(['find a poet', 'ask for it: about rain', 'answer']);
    const [first, second, third] = steps.map((step) => step.id);
    expect(root.outEdges(third ?? '', 'depends_on').map((edge) => edge.to)).toEqual([second]);
    expect(root.outEdges(second ?? '', 'depends_on').map((edge) => edge.to)).toEqual([first]);
    expect(root.outEdges(first ?? '', 'depends_on')).toEqual([]);
    expect(blockersOf(root, third ?? '').map((event) => event.id)).toEqual([second, first]);
    // The work root gave the poet: part of the Task root was given, done, and producing the poet's answer.
    const [given] = subtasks.filter((event) => event.metadata['work'] === 'task');
    const poet = given?.metadata['to'] as string;
    expect(given).toMatchObject({ content: 'write a haiku about rain', status: 'done', metadata: { taskStatus: 'completed' } });
    expect(produced(root, given?.id ?? '').map((note) => [note.kind, note.content, note.metadata['by']])).toEqual([['note', 'Rain on the roof, soft.', poet]]);
    // Root's own answer to the user, produced by the Task it was given.
    expect(produced(root, taskId).map((note) => note.content)).toEqual(['Rain on the roof, soft.']);

    // The poet's graph: the Task it was given, done, producing its answer.
    const child = await settled(await rt.graphMemory(poet));
    const taken = child.node(given?.id ?? '');
    expect(taken).toMatchObject({ kind: 'event', status: 'done', metadata: { work: 'task', from: 'root' } });
    const [answer] = produced(child, given?.id ?? '');
    expect(answer).toMatchObject({
      kind: 'note',
      title: 'answer',
      content: 'Rain on the roof, soft.',
      sessionId: taskId,
      metadata: { work: 'answer', taskId: given?.id },
    });
    // Through the views too.
    const view = await rt.graph(poet, { nodeId: given?.id ?? '', depth: 1 });
    expect(view.edges.map((edge) => edge.type)).toEqual(['produces']);
    await rt.shutdown();
  });

  it('keeps at most workNodes recorded nodes, the oldest going first, and records nothing with 0', async () => {
    const run = async (workNodes: number) => {
      const rt = await createRuntime({
        model: new ScriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]),
        ids: sequentialIds(),
        memory: { workNodes },
      });
      const tasks: string[] = [];
      for (const text of ['first', 'second', 'third']) {
        const taskId = await rt.submit(text);
        await rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
        tasks.push(taskId);
      }
      const graph = await settled(await rt.graphMemory('root'));
      const kept = [...graph.nodes()].map((node) => node.content);
      await rt.shutdown();
      return kept;
    };
    // Each Task is an event and its answer a note: four nodes keep the last two Tasks.
    expect((await run(4)).sort()).toEqual(['second', 'third', 'three', 'two'].sort());
    expect(await run(0)).toEqual([]);
  });

  it('records the artifacts a tool stored as notes the Task’s event produces, naming each by id', async () => {
    const chart = defineTool({
      name: 'render_chart',
      description: 'renders a chart',
      parameters: z.object({ title: z.string() }),
      execute: ({ title }) => Promise.resolve({ content: 'rendered', artifacts: [{ name: `${title}.svg`, mediaType: 'image/svg+xml', content: '<svg/>' }] }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'render_chart', arguments: { title: 'sales' } }] }, { text: 'Here is the chart.' }]);
    const rt = await createRuntime({ model, tools: [chart], ids: sequentialIds(), logger: new MemoryLogger() });
    const taskId = await rt.submit('chart the sales');
    expect((await rt.waitForAnswer(taskId, { timeoutMs: 20_000 })).status).toBe('completed');
    const [stored] = rt.artifacts(taskId);
    const root = await settled(await rt.graphMemory('root'));
    const notes = produced(root, taskId);
    const artifactNotes = notes.filter((note) => note.metadata['work'] === 'artifact');
    expect(artifactNotes.map((note) => [note.kind === 'note' ? note.title : note.kind, note.sessionId, note.metadata['artifactId']])).toEqual([
      ['sales.svg', taskId, stored?.id],
    ]);
    expect(notes.map((note) => note.metadata['work']).sort()).toEqual(['answer', 'artifact']);
    await rt.shutdown();
  });
});
