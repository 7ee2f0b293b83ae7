import { blockersOf, createRuntime } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

/** The id of the note the last tool call made (add_note answers `{ note: { id, … } }`). */
const lastNoteId = (messages: readonly { role: string; content: string }[]): string =>
  (JSON.parse(messages.findLast((message) => message.role === 'tool')?.content ?? '{}') as { note: { id: string } }).note.id;

// A scripted model stands in for the agent's: it calls the graph tools as a model would.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'update_event_status', arguments: { id: 'report', status: 'in_progress' } }] },
  { toolCalls: [{ name: 'update_event_status', arguments: { id: 'figures', status: 'done' } }] },
  { toolCalls: [{ name: 'add_note', arguments: { content: 'Q3 sales were up 12%.', title: 'Q3 sales', tags: ['sales'] } }] },
  ({ messages }) => ({ toolCalls: [{ name: 'link_nodes', arguments: { from: 'figures', to: lastNoteId(messages), type: 'produces' } }] }),
  { toolCalls: [{ name: 'update_event_status', arguments: { id: 'report', status: 'in_progress' } }] },
  { toolCalls: [{ name: 'explore', arguments: { id: 'report', depth: 2 } }] },
  { text: 'The figures are in and the report is under way.' },
]);
const rt = await createRuntime({ model });

// A program lays out the plan in root's graph: the report depends on the figures.
const graph = await rt.graphMemory('root');
await graph.addEvent({ id: 'report', content: 'Publish the quarterly report' });
await graph.addEvent({ id: 'figures', content: 'Collect the sales figures' });
await graph.link({ from: 'report', to: 'figures', type: 'depends_on' });
console.log(blockersOf(graph.graph, 'report').map((event) => event.id)); // [ 'figures' ]

const taskId = await rt.submit('Move the quarterly report on.');
console.log((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).result);
// What the model read after each call: first a refusal naming the blocker.
for (const message of model.requests.at(-1)?.messages ?? []) if (message.role === 'tool') console.log(message.name, message.content);

// The operator's view of the same graph (also `troupe graph root report`, `GET /api/agents/root/graph/nodes/report`).
const view = await rt.graph('root', { nodeId: 'report', depth: 2 });
for (const { node, distance } of view.nodes) console.log(distance, node.id, node.kind, node.kind === 'event' ? node.status : node.title);
for (const edge of view.edges) console.log(edge.from, edge.type, edge.to);
await rt.shutdown();
