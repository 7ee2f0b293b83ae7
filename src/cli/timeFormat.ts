// Local time, like a terminal user reads a clock; set TZ for another zone.

const two = (n: number): string => String(n).padStart(2, '0');

/** `HH:MM:SS.mmm` of an epoch-milliseconds timestamp. */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** `YYYY-MM-DD HH:MM:SS` of an epoch-milliseconds timestamp. */
export function dateTime(ms: number): string {
  const date = new Date(ms);
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${clockTime(ms).slice(0, 8)}`;
}
