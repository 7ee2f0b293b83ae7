import type { Task } from './schema.js';
import { taskText } from './task.js';

/**
 * How an incoming Task reads to a model: a header naming sender, task and action, then the
 * text. Kept in one place because the offline model reads the header back.
 */
export function taskAsPrompt(task: Task): string {
  return `[from ${task.from} · task ${task.id} · ${task.action}]\n${taskText(task)}`;
}

const headerRe = /^\[from ([A-Za-z0-9_-]+) · task ([A-Za-z0-9_-]+) · ([a-z0-9_.]+)\]\n/;

/** Reads back what `taskAsPrompt` wrote, or null for text that did not come from it. */
export function readPrompt(content: string): { from: string; taskId: string; action: string; text: string } | null {
  const match = headerRe.exec(content);
  if (match === null) return null;
  const [header, from = '', taskId = '', action = ''] = match;
  return { from, taskId, action, text: content.slice(header.length) };
}
