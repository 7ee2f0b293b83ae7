import { type Fact, factIdOf, labelOf } from './factSchema.js';

// What links a fact to others without an edge stored for it, read from what the fact already
// holds: a conversation's turns (metadata `kind: "turn"`) follow each other in the order they
// were said, and a fact promoted from summaries names the Tasks it came from (`taskIds`), whose
// events the agent's graph holds under the same ids. An adjacency kept in memory, rebuilt from
// the facts at open, costs one number a turn and nothing on disk: edges for 100,000 turns would
// be 200,000 records written on import (and rewritten when a turn is forgotten or merged away)
// to say what the turns' order says already.

/** Where a turn stands in its conversation: when it was said, then its fact number (the import order). */
interface Place {
  readonly time: number;
  readonly label: number;
}

const before = (a: Place, b: Place): boolean => a.time < b.time || (a.time === b.time && a.label < b.label);

/** The conversation a turn belongs to (its session and the source's conversation id), or undefined for a fact that is no turn. */
function conversationOf(fact: Fact): string | undefined {
  const metadata = fact.metadata;
  if (metadata?.['kind'] !== 'turn') return undefined;
  const conversation = metadata['conversation'];
  return `${fact.sessionId ?? ''}\u0000${typeof conversation === 'string' ? conversation : ''}`;
}

/** When a turn was said: its `at` when it has one, else when it was stored. */
function placeOf(fact: Fact): Place {
  const at = fact.metadata?.['at'];
  return { time: typeof at === 'number' ? at : fact.createdAt, label: labelOf(fact.id) };
}

/** The Tasks a fact names in its metadata (`taskIds`, or one `taskId`). */
export function tasksOf(fact: Fact): string[] {
  const metadata = fact.metadata;
  if (metadata === undefined) return [];
  const many = metadata['taskIds'];
  const one = metadata['taskId'];
  const ids = Array.isArray(many) ? many.filter((id): id is string => typeof id === 'string') : [];
  return typeof one === 'string' ? [...ids, one] : ids;
}

/** First index in `places` not before `place` (binary search). */
function indexOf(places: readonly Place[], place: Place): number {
  let [low, high] = [0, places.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(places[middle] as Place, place)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Each conversation's turns in order, and each Task's facts: what retrieval's graph channel follows from a fact. */
export class FactLinks {
  readonly #conversations = new Map<string, Place[]>();
  readonly #byTask = new Map<string, Set<string>>();

  /** Links of many facts at once (a store opening): each conversation sorted once. */
  static of(facts: Iterable<Fact>): FactLinks {
    const links = new FactLinks();
    for (const fact of facts) links.#addUnsorted(fact);
    for (const places of links.#conversations.values()) places.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    return links;
  }

  add(fact: Fact): void {
    const conversation = conversationOf(fact);
    if (conversation !== undefined) {
      const places = this.#placesOf(conversation);
      const place = placeOf(fact);
      // Turns mostly come in the order they were said: the common case appends.
      const last = places[places.length - 1];
      if (last === undefined || before(last, place)) places.push(place);
      else places.splice(indexOf(places, place), 0, place);
    }
    this.#addTasks(fact);
  }

  remove(fact: Fact): void {
    const conversation = conversationOf(fact);
    const places = conversation === undefined ? undefined : this.#conversations.get(conversation);
    if (conversation !== undefined && places !== undefined) {
      const at = indexOf(places, placeOf(fact));
      if (places[at]?.label === labelOf(fact.id)) places.splice(at, 1);
      if (places.length === 0) this.#conversations.delete(conversation);
    }
    for (const task of tasksOf(fact)) {
      const facts = this.#byTask.get(task);
      facts?.delete(fact.id);
      if (facts?.size === 0) this.#byTask.delete(task);
    }
  }

  /** The turns said just before and just after `fact` in its conversation (none for a fact that is no turn). */
  turnNeighbours(fact: Fact): string[] {
    const conversation = conversationOf(fact);
    const places = conversation === undefined ? undefined : this.#conversations.get(conversation);
    if (places === undefined) return [];
    const at = indexOf(places, placeOf(fact));
    if (places[at]?.label !== labelOf(fact.id)) return [];
    return [places[at - 1], places[at + 1]].flatMap((place) => (place === undefined ? [] : [factIdOf(place.label)]));
  }

  /** The facts that name Task `taskId`. */
  factsOfTask(taskId: string): readonly string[] {
    const facts = this.#byTask.get(taskId);
    return facts === undefined ? [] : [...facts];
  }

  #addUnsorted(fact: Fact): void {
    const conversation = conversationOf(fact);
    if (conversation !== undefined) this.#placesOf(conversation).push(placeOf(fact));
    this.#addTasks(fact);
  }

  #placesOf(conversation: string): Place[] {
    let places = this.#conversations.get(conversation);
    if (places === undefined) this.#conversations.set(conversation, (places = []));
    return places;
  }

  #addTasks(fact: Fact): void {
    for (const task of tasksOf(fact)) {
      let facts = this.#byTask.get(task);
      if (facts === undefined) this.#byTask.set(task, (facts = new Set()));
      facts.add(fact.id);
    }
  }
}
