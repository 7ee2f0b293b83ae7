import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RunApprovals } from '../../src/cli/runApprovals.js';
import type { Runtime } from '../../src/runtime/index.js';
import { mailTool } from '../support/mailTool.js';
import { quietRuntime, until } from '../support/runtimeFixture.js';

// `troupe run`'s question on the terminal, over a real stream pair: what a person types goes in
// on one PassThrough, the question comes out on another, and the runtime is a real one.

const secret = 'prompt-secret-value-77';
const question = 'approve, reject or edit? [a/r/e] ';

/** A terminal: what is typed, what was written, and a wait until the written text holds `text` `times` times. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  const wakers: (() => void)[] = [];
  output.on('data', (chunk: Buffer) => {
    written += chunk.toString();
    for (const wake of wakers.splice(0)) wake();
  });
  const count = (text: string): number => written.split(text).length - 1;
  return {
    input,
    output,
    written: () => written,
    type: (...lines: string[]) => input.write(lines.map((line) => `${line}\n`).join('')),
    async shows(text: string, times = 1): Promise<void> {
      while (count(text) < times) await new Promise<void>((resolve) => wakers.push(resolve));
    },
  };
}

/** A runtime whose root calls `send_email` for each address (in one step), then answers; asked about on `term`. */
async function asking(term: ReturnType<typeof terminal>, ...addresses: string[]) {
  const { tool: sendEmail, runs } = mailTool();
  const { rt, model } = await quietRuntime({
    tools: [sendEmail],
    secrets: [secret],
    steps: [{ toolCalls: addresses.map((to) => ({ name: 'send_email', arguments: { to, note: `key ${secret}` } })) }, { text: 'done' }],
  });
  const printed: string[] = [];
  const pauses: string[] = [];
  const approvals = new RunApprovals(
    rt,
    { kind: 'ask', input: term.input, output: term.output },
    { print: (line) => printed.push(line), pause: () => pauses.push('pause'), resume: () => pauses.push('resume') },
  );
  const taskId = await rt.submit('mail them');
  return { rt, model, runs, printed, pauses, approvals, taskId };
}

const toolResults = (rt: Runtime, model: { requests: readonly { messages: readonly { role: string; content: string }[] }[] }) =>
  (model.requests[1]?.messages ?? []).filter((message) => message.role === 'tool').map((message) => rt.redactor.text(message.content));

describe("troupe run's question on the terminal", () => {
  it('shows the tool, its arguments redacted and its annotations; asks again on a bad answer or edit; runs the edit', async () => {
    const term = terminal();
    const { rt, runs, printed, pauses, approvals, taskId } = await asking(term, 'all@example.com');
    await term.shows(question);
    const [approval] = rt.approvals();
    expect(term.written()).toContain(`${approval?.id ?? ''}  root asks to run send_email`);
    expect(term.written()).toContain('arguments: {"to":"all@example.com","note":"key [REDACTED]"}');
    expect(term.written()).toContain('why: its tool asks for approval; annotations: destructive, open world');
    expect(term.written()).not.toContain(secret);

    term.type('maybe');
    await term.shows('"maybe" is none of a (approve), r (reject), e (edit)');
    term.type('e', '{not json');
    await term.shows('those arguments are not JSON');
    term.type('e', '["a list"]');
    await term.shows('those arguments are not a JSON object');
    term.type('e', '{"to":"nobody"}');
    await term.shows(question, 5);
    expect(printed.at(-1)).toMatch(/^troupe: arguments\.to: /);
    expect(runs).toEqual([]);

    term.type('e', '{"to":"team@example.com"}');
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 5_000 })).toMatchObject({ status: 'completed' });
    expect(runs).toEqual(['team@example.com']);
    expect(printed.at(-1)).toBe(`troupe: edited send_email call ${approval?.id ?? ''}`);
    expect(pauses).toEqual(['pause', 'resume']);
    approvals.close();
    await rt.shutdown();
  });

  it('asks one call at a time: a rejection with a message never runs, an approval runs', async () => {
    const term = terminal();
    const { rt, model, runs, printed, approvals, taskId } = await asking(term, 'eve@example.com', 'ana@example.com');
    await until(() => rt.approvals().length === 2, 'both approvals waiting');
    await term.shows(question);
    expect(term.written()).toContain('arguments: {"to":"eve@example.com"');
    expect(term.written()).not.toContain('ana@example.com');
    term.type('r', 'eve left the company');
    await term.shows(question, 2);
    expect(term.written()).toContain('arguments: {"to":"ana@example.com"');
    term.type('a');
    await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(runs).toEqual(['ana@example.com']);
    expect(printed.filter((line) => /^troupe: (rejected|approved) send_email/.test(line))).toHaveLength(2);
    expect(toolResults(rt, model).find((content) => content.includes('approval_rejected'))).toContain('eve left the company');
    approvals.close();
    await rt.shutdown();
  });

  it('decides nothing when the terminal’s input ends: the call keeps waiting', async () => {
    const term = terminal();
    const { rt, runs, pauses, approvals } = await asking(term, 'bob@example.com');
    await term.shows(question);
    term.input.end();
    await until(() => pauses.includes('resume'), 'the question given up');
    approvals.close();
    expect(rt.approvals()).toMatchObject([{ status: 'pending' }]);
    expect(runs).toEqual([]);
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
});
