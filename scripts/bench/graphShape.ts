import type { EventNode, Link, NoteNode } from '../../src/graph/index.js';
import { seededRandom } from '../../src/random.js';

// A deterministic graph of the shape an agent's work leaves (issue 33): events in `part_of`
// trees (a task, its subtasks, theirs), `depends_on` chains among siblings (a plan's steps) and a
// few more dependencies inside one project, each note `produces`-linked to the event it came out
// of, and `references` from events to their context notes and between notes, the rest of the
// edges. Dependencies stay inside a project (100 events): a real plan does not depend on every
// task ever done, and the cycle check's search is bounded by what the new edge's target reaches.
// Every edge is valid, so the counts are exact: `nodes` nodes, 3 × `nodes` edges.

/** Events of one project; every `depends_on` edge joins two of them. */
const projectEvents = 100;
/** Events of one `part_of` tree. */
const treeEvents = 10;

export interface GeneratedGraph {
  /** Events, then notes; each note's producing event comes before it. */
  readonly nodes: readonly (EventNode | NoteNode)[];
  /** Edges in the order to add them: all valid. */
  readonly links: readonly Required<Link>[];
}

const topics = ['deploy', 'invoice', 'review', 'migration', 'report', 'backup', 'outage', 'release', 'survey', 'budget', 'onboarding', 'audit'];

export function generateGraph(nodes: number, seed: number): GeneratedGraph {
  const random = seededRandom(seed);
  const pick = (count: number): number => Math.floor(random() * count);
  const topic = (): string => topics[pick(topics.length)] ?? 'work';
  const eventCount = Math.ceil(nodes / 2);
  const noteCount = nodes - eventCount;
  const created = 1_800_000_000_000;
  const events: EventNode[] = Array.from({ length: eventCount }, (_, i) => ({
    kind: 'event',
    id: `e${i}`,
    content: `Step ${i % treeEvents} of the ${topic()} work for project ${Math.floor(i / projectEvents)}: check the ${topic()} figures and write down what changed.`,
    createdAt: created + i,
    updatedAt: created + i,
    metadata: {},
    sessionId: null,
    status: random() < 0.6 ? 'done' : random() < 0.5 ? 'in_progress' : 'pending',
    dueAt: null,
    priority: pick(5),
  }));
  const notes: NoteNode[] = Array.from({ length: noteCount }, (_, i) => ({
    kind: 'note',
    id: `n${i}`,
    content: `What the ${topic()} step found: the ${topic()} numbers moved by ${pick(100)} and the ${topic()} owner signed off.`,
    createdAt: created + eventCount + i,
    updatedAt: created + eventCount + i,
    metadata: {},
    sessionId: null,
    title: `${topic()} finding ${i}`,
    tags: [topic()],
    source: null,
  }));
  const links: Required<Link>[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string, type: Link['type']): void => {
    const key = `${from} ${type} ${to}`;
    if (from === to || seen.has(key) || links.length >= nodes * 3) return;
    seen.add(key);
    links.push({ from, to, type, weight: 1 + pick(3) });
  };
  for (let i = 0; i < eventCount; i++) {
    const treeStart = i - (i % treeEvents);
    const projectStart = i - (i % projectEvents);
    if (i === treeStart) continue;
    // A parent earlier in the same tree: trees two or three levels deep.
    const parent = i - treeStart <= 3 ? treeStart : treeStart + pick(Math.min(3, i - treeStart));
    add(`e${i}`, `e${parent}`, 'part_of');
    // The previous step of the same tree, and now and then an earlier event of the project.
    if (i - 1 > treeStart) add(`e${i}`, `e${i - 1}`, 'depends_on');
    if (random() < 0.5 && i > projectStart) add(`e${i}`, `e${projectStart + pick(i - projectStart)}`, 'depends_on');
  }
  for (let j = 0; j < noteCount; j++) add(`e${Math.min(eventCount - 1, Math.floor((j * eventCount) / noteCount))}`, `n${j}`, 'produces');
  // The rest are references: an event's context notes, nearby mostly, and notes citing notes.
  while (links.length < nodes * 3) {
    const near = (count: number, around: number): number => Math.max(0, Math.min(count - 1, around + pick(400) - 200));
    if (random() < 0.4) {
      const event = pick(eventCount);
      add(`e${event}`, `n${random() < 0.8 ? near(noteCount, Math.floor((event * noteCount) / eventCount)) : pick(noteCount)}`, 'references');
    } else {
      const note = pick(noteCount);
      add(`n${note}`, `n${random() < 0.8 ? near(noteCount, note) : pick(noteCount)}`, 'references');
    }
  }
  return { nodes: [...events, ...notes], links };
}
