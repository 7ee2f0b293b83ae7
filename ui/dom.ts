/** What `h` sets on an element besides its children. */
interface Props {
  readonly class?: string;
  readonly text?: string;
  readonly title?: string;
  /** `data-*` attributes, which the browser tests select by. */
  readonly data?: Readonly<Record<string, string>>;
  readonly onclick?: (event: Event) => void;
}

/** An element with its props and children: the one way the dashboard makes DOM. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class !== undefined) element.className = props.class;
  if (props.text !== undefined) element.textContent = props.text;
  if (props.title !== undefined) element.title = props.title;
  for (const [key, value] of Object.entries(props.data ?? {})) element.dataset[key] = value;
  if (props.onclick !== undefined) element.addEventListener('click', props.onclick);
  element.append(...children);
  return element;
}

/** Sets a text only when it changed: an unchanged row costs the browser no layout. */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/**
 * Runs `flush` once in the next animation frame however many times it is asked for before:
 * bursts of events cost one DOM update a frame, not one each.
 */
export function perFrame(flush: () => void): () => void {
  let asked = false;
  return () => {
    if (asked) return;
    asked = true;
    requestAnimationFrame(() => {
      asked = false;
      flush();
    });
  };
}

/** A value's text for a person: strings as they are, the rest as JSON, cut at `max` characters. */
export function shown(value: unknown, max = 240): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
