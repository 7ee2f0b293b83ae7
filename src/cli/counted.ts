/** A count and what it counts, the noun singular only for one: `1 agent`, `0 agents`, `2 agents`. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
