import type { MachineDefinition } from './api.js';
import { h } from './dom.js';

/** Whether a state is the agent's, or contains it: `running` and `running.turn` are lit for `running.turn`. */
const isLit = (path: string, current: string): boolean => current === path || current.startsWith(`${path}.`);

/**
 * A machine's statechart as nested boxes, each state inside its parent with the events it handles
 * and where they lead (its initial child marked ●), drawn once; `light` marks the states the
 * agent is in.
 */
export class Statechart {
  readonly element: HTMLElement;
  readonly #boxes = new Map<string, HTMLElement>();

  constructor(definition: MachineDefinition) {
    const box = (path: string, label: string, initial: boolean, type: string): HTMLElement => {
      const events = definition.transitions.filter((transition) => transition.source === path);
      const children = definition.states.filter((state) => state.parent === (path === '' ? null : path));
      const own = definition.states.find((state) => state.path === path);
      const element = h(
        'div',
        { class: `chart-state ${type}`, data: { state: path } },
        h('div', { class: 'name', text: `${initial ? '● ' : ''}${label}` }),
        h(
          'ul',
          { class: 'events' },
          ...events.map((t) =>
            h('li', { text: `${t.event}${t.guard === null ? '' : ` [${t.guard}]`}${t.targets.length === 0 ? '' : ` → ${t.targets.join(', ')}`}` }),
          ),
        ),
        h(
          'div',
          { class: 'children' },
          ...children.map((child) =>
            box(child.path, child.path.split('.').pop() ?? child.path, (own?.initial ?? definition.initial) === child.path, child.type),
          ),
        ),
      );
      this.#boxes.set(path, element);
      return element;
    };
    this.element = box('', definition.machine, false, 'machine');
  }

  light(current: string): void {
    for (const [path, element] of this.#boxes) element.classList.toggle('lit', path !== '' && isLit(path, current));
  }
}
