import type { AgentView, Api, MachineDefinition } from './api.js';
import { h, shown } from './dom.js';
import { Statechart } from './statechart.js';

interface Listed {
  readonly total: number;
  readonly counts: Readonly<Record<string, number>>;
}

/** An entry's text, whatever kind of memory item or graph node it is. */
const textOf = (entry: unknown): string => {
  const value = entry as { text?: unknown; node?: { text?: unknown; label?: unknown } };
  return shown(value.text ?? value.node?.text ?? value.node?.label ?? entry, 200);
};

/**
 * One agent: what it is, its statechart with the state it is in lit, its memory (the tiers'
 * counts and its newest facts) and its graph's newest nodes.
 */
export class AgentPanel {
  readonly element = h('section', { data: { view: 'agent' } }, h('p', { class: 'muted', text: 'Pick an agent in the organisation.' }));
  readonly #api: Api;
  #chart: Statechart | undefined;
  #machine: Promise<MachineDefinition> | undefined;
  #shown: string | undefined;

  constructor(api: Api) {
    this.#api = api;
  }

  /** Relights the chart when the agent shown changed state. */
  changed(agent: AgentView): void {
    if (agent.id !== this.#shown) return;
    this.#chart?.light(agent.status === 'terminated' ? 'terminated' : agent.state);
    this.element.querySelector('[data-field="state"]')?.replaceChildren(agent.state);
  }

  async show(agent: AgentView): Promise<void> {
    this.#shown = agent.id;
    this.#machine ??= this.#api.get<MachineDefinition>('/api/machines/agent');
    this.#chart = new Statechart(await this.#machine);
    this.#chart.light(agent.state);
    const id = encodeURIComponent(agent.id);
    const [memory, graph] = await Promise.allSettled([
      this.#api.get<Listed & { entries: unknown[] }>(`/api/agents/${id}/memory?tier=l4&limit=20`),
      this.#api.get<Listed & { nodes: unknown[] }>(`/api/agents/${id}/graph/nodes?limit=20`),
    ]);
    if (this.#shown !== agent.id) return;
    this.element.replaceChildren(
      h('h2', { text: agent.id }),
      h('p', {}, `${agent.roleName} · state `, h('code', { data: { field: 'state' }, text: agent.state }), ` · parent ${agent.parentAgentId ?? '—'}`),
      h('h3', { text: 'Statechart' }),
      this.#chart.element,
      h('h3', { text: 'Memory' }),
      memory.status === 'fulfilled'
        ? h(
            'div',
            {},
            h('p', {
              text: Object.entries(memory.value.counts)
                .map(([tier, n]) => `${tier.toUpperCase()} ${String(n)}`)
                .join(' · '),
            }),
            list(memory.value.entries),
          )
        : h('p', { class: 'error', text: String(memory.reason) }),
      h('h3', { text: 'Graph' }),
      graph.status === 'fulfilled'
        ? h(
            'div',
            {},
            h('p', { text: `${String(graph.value.counts['nodes'] ?? 0)} nodes, ${String(graph.value.counts['edges'] ?? 0)} edges` }),
            list(graph.value.nodes),
          )
        : h('p', { class: 'error', text: String(graph.reason) }),
    );
  }
}

const list = (entries: readonly unknown[]): HTMLElement => h('ul', { class: 'entries' }, ...entries.map((entry) => h('li', { text: textOf(entry) })));
