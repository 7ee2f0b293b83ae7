import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing.js';
import type { Approval } from '../../src/task/index.js';
import { runCli } from '../support/cliProcess.js';
import { answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { mailTool } from '../support/mailTool.js';
import { until } from '../support/runtimeFixture.js';

// `troupe approvals`, `troupe approve` and `troupe reject` through the real CLI in a child
// process, against a runtime served over real HTTP on loopback in this one.

const served = serverPerTest();
const token = 'approvals-cli-token-0042';

/** A served runtime whose root calls `send_email` (which needs approval) to each address in turn, then answers. */
async function mailing(...addresses: string[]) {
  const { tool: sendEmail, runs } = mailTool();
  const model = new ScriptedModel([{ toolCalls: addresses.map((to) => ({ name: 'send_email', arguments: { to } })) }, { text: 'done' }]);
  const server = await served({ model, runtime: { tools: [sendEmail] }, server: { token } });
  const { body } = await call<{ taskId: string }>(server.url, '/api/submit', { json: { text: 'mail them' }, token });
  await until(() => server.rt.approvals().length === addresses.length, 'the approvals waiting');
  const cli = (...args: string[]) => runCli([...args, '--url', server.url], { TROUPE_TOKEN: token });
  return { ...server, runs, taskId: body.taskId, cli };
}

describe('troupe approvals, approve and reject', () => {
  it('list the waiting calls (--json too), approve one, edit another and reject a third, each run as decided', async () => {
    const { rt, runs, taskId, cli } = await mailing('ana@example.com', 'all@example.com', 'eve@example.com');
    const listed = await cli('approvals');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ap-[0-9a-f]{24} {2}root asks to run send_email$/m);
    expect(listed.stdout).toContain('  arguments: {"to":"ana@example.com"}');
    expect(listed.stdout).toContain('why: its tool asks for approval; annotations: destructive, open world');
    const json = await cli('approvals', '--json', '--agent', 'root');
    const [ana, all, eve] = JSON.parse(json.stdout) as Approval[];
    expect([ana, all, eve].map((approval) => approval?.arguments)).toEqual(['ana', 'all', 'eve'].map((to) => JSON.stringify({ to: `${to}@example.com` })));

    const approved = await cli('approve', ana?.id ?? '', '--digest', ana?.digest ?? '', '--by', 'ops');
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(`approved send_email call ${ana?.id ?? ''} of root\n`);
    const edited = await cli('approve', all?.id ?? '', '--arguments', '{"to":"team@example.com"}');
    expect(edited.stdout).toBe(`approved with edited arguments send_email call ${all?.id ?? ''} of root\n`);
    const rejected = await cli('reject', eve?.id ?? '', '--message', 'eve left');
    expect(rejected.stdout).toBe(`rejected send_email call ${eve?.id ?? ''} of root\n`);

    expect(await answered(rt, taskId)).toMatchObject({ status: 'completed' });
    expect(runs.toSorted()).toEqual(['ana@example.com', 'team@example.com']);
    expect((await cli('approvals')).stdout).toContain('no tool call waits for approval at');
  });

  it('refusals exit 2 naming why: a second decision, other arguments, a bad edit, an unknown or malformed id, bad --arguments', async () => {
    const { cli, runs } = await mailing('bob@example.com');
    const [waiting] = JSON.parse((await cli('approvals', '--json')).stdout) as Approval[];
    const id = waiting?.id ?? '';
    const stale = await cli('approve', id, '--digest', '0'.repeat(64));
    expect(stale.code).toBe(2);
    expect(stale.stderr).toMatch(new RegExp(`^troupe: cannot approve ${id}: approval ${id} waits on other arguments`));
    const badEdit = await cli('approve', id, '--arguments', '{"to":"nobody"}');
    expect(badEdit.code).toBe(2);
    expect(badEdit.stderr).toContain('arguments.to: ');
    const notJson = await cli('approve', id, '--arguments', '{to:');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toBe('troupe: --arguments must be a JSON object, got "{to:"\n');
    const malformed = await cli('reject', 'nope');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('troupe: <id> must be an approval id');
    const unknown = await cli('reject', 'ap-000000000000000000000000');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no tool call waits for approval ap-000000000000000000000000');
    expect((await cli('reject', id)).code).toBe(0);
    const second = await cli('approve', id);
    expect(second.code).toBe(2);
    // Refused as decided already, whether or not the rejected call is over yet.
    expect(second.stderr).toMatch(/decided already( \(rejected\)| and its call is over)/);
    expect(runs).toEqual([]);
  });

  it('with no service at the address, or a wrong token, exit 2 saying so', async () => {
    const { url } = await mailing('carol@example.com');
    const wrongToken = await runCli(['approvals', '--url', url], { TROUPE_TOKEN: 'not-the-token-1234' });
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.stderr).toContain('wrong bearer token');
    const nobody = await runCli(['approvals'], { TROUPE_URL: 'http://127.0.0.1:9' });
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(
      /^troupe: cannot list the approvals: no troupe serve answered at http:\/\/127\.0\.0\.1:9 \(.*\): start one, or give its address/,
    );
  });
});
