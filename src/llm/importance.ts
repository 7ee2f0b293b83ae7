/** `<imp:0.8/>`: how much the model says an output matters (0..1). Whitespace inside is tolerated. */
const tagRe = /<imp:\s*([0-9]*\.?[0-9]+)\s*\/>/g;

export interface ImportanceReading {
  /** The text with every tag removed. */
  readonly text: string;
  /** The last well-formed value in range, if any. */
  readonly importance: number | undefined;
}

/** Strips `<imp:X/>` tags from a whole text and reads the importance they give. */
export function readImportance(text: string): ImportanceReading {
  let importance: number | undefined;
  const stripped = text.replace(tagRe, (_tag, value: string) => {
    const parsed = Number(value);
    if (parsed >= 0 && parsed <= 1) importance = parsed;
    return '';
  });
  return { text: stripped, importance };
}

/**
 * Removes `<imp:X/>` tags from a stream of text fragments, even when a tag is split across
 * fragments: anything that could still become a tag is held back until it can't.
 */
export class ImportanceTagStripper {
  #held = '';

  /** The visible part of `fragment` (and of what was held back) that is safe to show now. */
  push(fragment: string): string {
    const text = readImportance(this.#held + fragment).text;
    const start = text.lastIndexOf('<');
    if (start !== -1 && couldBecomeTag(text.slice(start))) {
      this.#held = text.slice(start);
      return text.slice(0, start);
    }
    this.#held = '';
    return text;
  }

  /** Whatever is still held back at the end of the stream (it never became a tag). */
  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }
}

function couldBecomeTag(tail: string): boolean {
  const prefix = '<imp:';
  if (tail.length <= prefix.length) return prefix.startsWith(tail);
  return /^<imp:\s*[0-9.]*\s*\/?$/.test(tail);
}
