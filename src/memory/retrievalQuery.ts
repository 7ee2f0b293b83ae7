// A turn searches its long-term memory with the Task it answers, and a Task may be far longer
// than a search query may be. A long request usually opens with what it is about and closes with
// what it asks, so the query keeps both ends and leaves out the middle.

const gap = ' … ';

/** A search query of at most `maxChars` characters from `text` of any length: all of it when short enough, else its opening and its close, cut between words. Blank when `text` is. */
export function retrievalQuery(text: string, maxChars: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= maxChars) return trimmed;
  if (maxChars <= gap.length + 2) return wholeCharacters(trimmed.slice(0, maxChars));
  const half = Math.floor((maxChars - gap.length) / 2);
  const opening = beforeLastSpace(wholeCharacters(trimmed.slice(0, half)));
  const close = afterFirstSpace(wholeCharacters(trimmed.slice(trimmed.length - half)));
  return `${opening}${gap}${close}`;
}

/** Without a half of a surrogate pair at either end (a slice may cut one). */
function wholeCharacters(text: string): string {
  let start = 0;
  let end = text.length;
  if (isLowSurrogate(text.charCodeAt(0))) start = 1;
  if (end > start && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

function beforeLastSpace(text: string): string {
  const space = text.search(/\s\S*$/);
  return space > text.length / 2 ? text.slice(0, space) : text;
}

function afterFirstSpace(text: string): string {
  const space = text.search(/\s/);
  return space >= 0 && space < text.length / 2 ? text.slice(space + 1) : text;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
