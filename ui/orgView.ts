import type { AgentView, Api } from './api.js';
import { h, perFrame, setText } from './dom.js';

/** One agent's row in the tree: the elements its updates touch. */
interface Row {
  agent: AgentView;
  readonly item: HTMLLIElement;
  readonly state: HTMLElement;
  readonly lanes: HTMLElement;
  readonly queued: HTMLElement;
  readonly children: HTMLUListElement;
}

/** Agents asked for one by one at most; past this a change reloads the whole organisation. */
const maxSingleFetches = 50;
/** How long news about agents is gathered before they are read again: a burst costs one read each. */
const fetchAfterMs = 200;
/** Agents a page of `GET /api/agents` holds (its most). */
const pageSize = 1000;

/**
 * The live organisation: every active agent as a tree under its parent, with its machine state,
 * lanes and mailbox depth. Built once per load; afterwards an agent the event stream mentions is
 * read again (`touch`), and the rows that changed are repainted together in the next frame.
 */
export class OrgView {
  readonly element: HTMLElement;
  readonly #api: Api;
  readonly #rows = new Map<string, Row>();
  readonly #top = h('ul', { class: 'tree' });
  readonly #summary = h('div', { class: 'summary' });
  readonly #wanted = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #repaint = perFrame(() => this.#paint());
  readonly #changed: (agent: AgentView) => void;
  #selected: string | undefined;
  #fetchTimer: number | undefined;

  constructor(api: Api, onSelect: (agentId: string) => void, onChange: (agent: AgentView) => void) {
    this.#api = api;
    this.#changed = onChange;
    this.element = h('section', { class: 'org', data: { view: 'org' } }, h('h2', { text: 'Organisation' }), this.#summary, this.#top);
    this.#top.addEventListener('click', (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>('[data-agent-id]');
      if (item?.dataset['agentId'] === undefined) return;
      event.stopPropagation();
      this.select(item.dataset['agentId']);
      onSelect(item.dataset['agentId']);
    });
  }

  agent(id: string): AgentView | undefined {
    return this.#rows.get(id)?.agent;
  }

  /** Reads every active agent, page by page, and draws the tree afresh. */
  async load(): Promise<void> {
    const agents: AgentView[] = [];
    for (let offset = 0; ; offset += pageSize) {
      const page = await this.#api.get<{ total: number; agents: AgentView[] }>(`/api/agents?status=active&limit=${String(pageSize)}&offset=${String(offset)}`);
      agents.push(...page.agents);
      if (page.agents.length < pageSize || agents.length >= page.total) break;
    }
    this.#rows.clear();
    this.#top.replaceChildren();
    // Oldest first: a parent's row is there before its children's.
    for (const agent of agents) this.#add(agent);
    this.#paintSummary();
    if (this.#selected !== undefined) this.select(this.#selected);
  }

  /** Reads `id` again soon (with whatever else is mentioned meanwhile); an id that is no agent's is left alone unless `spawned`. */
  touch(id: string, spawned = false): void {
    if (!spawned && !this.#rows.has(id)) return;
    this.#wanted.add(id);
    if (this.#fetchTimer !== undefined) return;
    this.#fetchTimer = window.setTimeout(() => {
      this.#fetchTimer = undefined;
      void this.#fetchWanted();
    }, fetchAfterMs);
  }

  select(id: string): void {
    this.#rows.get(this.#selected ?? '')?.item.classList.remove('selected');
    this.#selected = id;
    this.#rows.get(id)?.item.classList.add('selected');
  }

  async #fetchWanted(): Promise<void> {
    const ids = [...this.#wanted];
    this.#wanted.clear();
    if (ids.length > maxSingleFetches) return this.load();
    const read = await Promise.allSettled(ids.map((id) => this.#api.get<AgentView>(`/api/agents/${encodeURIComponent(id)}`)));
    for (const result of read) if (result.status === 'fulfilled') this.#update(result.value);
  }

  #update(agent: AgentView): void {
    const row = this.#rows.get(agent.id);
    if (row === undefined) this.#add(agent);
    else row.agent = agent;
    this.#dirty.add(agent.id);
    this.#repaint();
    this.#changed(agent);
  }

  #add(agent: AgentView): void {
    const state = h('span', { class: 'state' });
    const lanes = h('span', { class: 'lanes', title: 'lanes: sessions it is serving now' });
    const queued = h('span', { class: 'queued', title: 'mailbox: Tasks waiting for a lane' });
    const children = h('ul');
    const line = h(
      'div',
      { class: 'line' },
      h('span', { class: 'id', text: agent.id }),
      h('span', { class: 'role', text: agent.roleName }),
      state,
      lanes,
      queued,
    );
    const item = h('li', { class: 'agent', data: { agentId: agent.id } }, line, children);
    const row: Row = { agent, item, state, lanes, queued, children };
    this.#rows.set(agent.id, row);
    this.#paintRow(row);
    const parent = agent.parentAgentId === null ? undefined : this.#rows.get(agent.parentAgentId);
    (parent?.children ?? this.#top).append(item);
  }

  #paint(): void {
    for (const id of this.#dirty) {
      const row = this.#rows.get(id);
      if (row !== undefined) this.#paintRow(row);
    }
    this.#dirty.clear();
    this.#paintSummary();
  }

  #paintRow(row: Row): void {
    const { agent } = row;
    setText(row.state, agent.status === 'terminated' ? 'terminated' : agent.state);
    row.state.dataset['state'] = agent.status === 'terminated' ? 'terminated' : (agent.state.split('.')[1] ?? agent.state);
    setText(row.lanes, `lanes ${String(agent.lanes)}`);
    setText(row.queued, `mailbox ${String(agent.queued)}`);
  }

  #paintSummary(): void {
    let lanes = 0;
    let queued = 0;
    for (const { agent } of this.#rows.values()) {
      lanes += agent.lanes;
      queued += agent.queued;
    }
    setText(this.#summary, `${String(this.#rows.size)} agents · ${String(lanes)} lanes busy · ${String(queued)} Tasks queued`);
  }
}
