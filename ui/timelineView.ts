import { type Api, ApiError, type Task } from './api.js';
import { h, perFrame, shown } from './dom.js';

/** Streamed fragments of model output: far too many for a timeline, and the answer says it all. */
const hiddenActions: ReadonlySet<string> = new Set(['node.thinking']);
/** Sessions offered in the list, newest first. */
const maxSessions = 50;

/** What a Task is in a timeline: a message, a tool call or result, an artifact, an approval, a handoff. */
function kindOf(task: Task): string {
  if (task.action === 'node.tool_call') return 'tool-call';
  if (task.action === 'node.tool_result') return Array.isArray(task.parameters['artifacts']) ? 'artifact' : 'tool-result';
  if (task.metadata['handoff'] !== undefined) return 'handoff';
  if (task.status === 'input-required' && task.metadata['approvals'] !== undefined) return 'approval';
  return 'message';
}

function summaryOf(task: Task): string {
  if (task.action === 'node.tool_call') return `${shown(task.parameters['tool'])}(${shown(task.parameters['arguments'], 160)})`;
  if (task.error !== null) return `${task.error.code}: ${task.error.message}`;
  const source: unknown = task.result ?? task.parameters;
  const text = typeof source === 'object' && source !== null && 'text' in source ? source.text : source;
  return shown(text);
}

/** What tells two messages apart: a Task keeps its id through its statuses. */
const messageKey = (task: Task): string => `${task.id}\u0000${task.status}\u0000${String(task.createdAt)}`;

/** Tokens a Task says it spent, when its metadata carries a `usage` (prompt and completion tokens). */
function tokensOf(task: Task): string {
  const usage = task.metadata['usage'] as { promptTokens?: number; completionTokens?: number } | undefined;
  if (usage === undefined) return '';
  return `${String((usage.promptTokens ?? 0) + (usage.completionTokens ?? 0))} tok`;
}

/**
 * A session's timeline: every Task of it (messages, tool calls and results, artifacts, approvals,
 * handoffs) with its time from the first and from the one before, then the live ones as the
 * event stream brings them, appended together once a frame.
 */
export class TimelineView {
  readonly element: HTMLElement;
  readonly #api: Api;
  readonly #sessions = h('select', { data: { role: 'sessions' } });
  readonly #input = h('input');
  readonly #rows = h('ol', { class: 'timeline' });
  readonly #status = h('div', { class: 'muted' });
  readonly #pending: Task[] = [];
  readonly #append = perFrame(() => this.#flush());
  #session: string | undefined;
  #reading = false;
  /** Whether the person picked the session shown: then a new one does not replace it. */
  #picked = false;
  #first = 0;
  #last = 0;

  constructor(api: Api) {
    this.#api = api;
    this.#input.placeholder = 'session or task id';
    const form = h('form', { class: 'bar' }, this.#sessions, this.#input, h('button', { text: 'Show' }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const id = this.#input.value.trim() || this.#sessions.value;
      this.#picked = true;
      if (id !== '') void this.show(id);
    });
    this.#sessions.addEventListener('change', () => {
      this.#picked = true;
      void this.show(this.#sessions.value);
    });
    this.element = h('section', { data: { view: 'timeline' } }, form, this.#status, this.#rows);
  }

  /** A session the user started: offered in the list, and shown unless the person picked one. */
  offer(sessionId: string): void {
    if ([...this.#sessions.options].some((option) => option.value === sessionId)) return;
    this.#sessions.prepend(h('option', { text: sessionId }));
    if (this.#sessions.options.length > maxSessions) this.#sessions.lastElementChild?.remove();
    if (!this.#picked) void this.show(sessionId);
  }

  task(task: Task): void {
    if (task.sessionId !== this.#session || hiddenActions.has(task.action)) return;
    this.#pending.push(task);
    // While the session is read, what comes is held for after what the read brings.
    if (!this.#reading) this.#append();
  }

  /** Reads the session's Tasks afresh (every tree of it with a data dir; what reached the user without). */
  async show(sessionId: string): Promise<void> {
    this.#session = sessionId;
    this.#sessions.value = sessionId;
    this.#pending.length = 0;
    this.#reading = true;
    const reply = await this.#read(sessionId).finally(() => (this.#reading = false));
    if (this.#session !== sessionId) return;
    this.#rows.replaceChildren();
    this.#first = reply.messages[0]?.createdAt ?? 0;
    this.#last = this.#first;
    this.#status.textContent = `session ${sessionId}: ${String(reply.total)} Tasks, ${String(reply.artifacts.length)} artifacts`;
    // What the stream brought while the session was read comes after it, unless the read had it.
    const live = this.#pending.splice(0);
    const read = new Set(reply.messages.map(messageKey));
    this.#pending.push(...reply.messages.filter((task) => !hiddenActions.has(task.action)), ...live.filter((task) => !read.has(messageKey(task))));
    this.#flush();
  }

  async #read(sessionId: string): Promise<{ messages: Task[]; total: number; artifacts: unknown[] }> {
    const path = `/api/messages/${encodeURIComponent(sessionId)}?limit=1000`;
    try {
      return await this.#api.get(`${path}&scope=all`);
    } catch (error) {
      // A runtime without a data dir keeps only what reached the user.
      if (!(error instanceof ApiError && error.status === 400)) throw error;
      return this.#api.get(path);
    }
  }

  #flush(): void {
    const rows = this.#pending.splice(0).map((task) => this.#row(task));
    this.#rows.append(...rows);
  }

  #row(task: Task): HTMLLIElement {
    if (this.#first === 0) this.#first = this.#last = task.createdAt;
    const since = task.createdAt - this.#first;
    const step = task.createdAt - this.#last;
    this.#last = task.createdAt;
    const kind = kindOf(task);
    return h(
      'li',
      { class: `event ${kind}`, data: { taskId: task.id, kind }, title: new Date(task.createdAt).toISOString() },
      h('span', { class: 'time', text: `+${(since / 1000).toFixed(3)} s`, title: `${String(step)} ms after the one before` }),
      h('span', { class: 'route', text: `${task.from} → ${task.to}` }),
      h('span', { class: 'action', text: task.action }),
      h('span', { class: 'status', text: task.status }),
      h('span', { class: 'tokens', text: tokensOf(task) }),
      h('span', { class: 'text', text: summaryOf(task) }),
    );
  }
}
