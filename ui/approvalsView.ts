import type { Api, Approval } from './api.js';
import { h, perFrame } from './dom.js';

/**
 * The tool calls waiting for a person (`GET /api/approvals`), each with approve, reject and edit
 * (`POST /api/approvals/:id`, with the digest of the arguments shown, so a decision is never
 * taken on arguments that changed). Read again, once a frame, whenever the stream says one
 * waits or was decided.
 */
export class ApprovalsView {
  readonly element: HTMLElement;
  readonly #api: Api;
  readonly #list = h('ul', { class: 'approvals' });
  readonly #count: HTMLElement;
  readonly reload = perFrame(() => void this.load());

  constructor(api: Api, count: HTMLElement) {
    this.#api = api;
    this.#count = count;
    this.element = h('section', { data: { view: 'approvals' } }, this.#list);
  }

  async load(): Promise<void> {
    const { approvals } = await this.#api.get<{ approvals: Approval[] }>('/api/approvals');
    this.#count.textContent = approvals.length === 0 ? '' : String(approvals.length);
    this.#list.replaceChildren(
      ...(approvals.length === 0 ? [h('li', { class: 'muted', text: 'No tool call is waiting for approval.' })] : approvals.map((a) => this.#item(a))),
    );
  }

  #item(approval: Approval): HTMLLIElement {
    const args = h('textarea', { class: 'arguments' });
    args.value = approval.arguments;
    args.readOnly = true;
    const error = h('div', { class: 'error' });
    const decide = (decision: Record<string, unknown>): void => {
      this.#api.post(`/api/approvals/${encodeURIComponent(approval.id)}`, { ...decision, digest: approval.digest, by: 'dashboard' }).then(
        () => this.reload(),
        (failure: unknown) => (error.textContent = failure instanceof Error ? failure.message : String(failure)),
      );
    };
    const edit = h('button', { text: 'Edit', data: { action: 'edit' } });
    edit.addEventListener('click', () => {
      if (args.readOnly) {
        args.readOnly = false;
        edit.textContent = 'Run edited';
        args.focus();
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(args.value);
      } catch {
        error.textContent = 'the arguments must be a JSON object';
        return;
      }
      decide({ action: 'edit', arguments: parsed });
    });
    return h(
      'li',
      { class: 'approval', data: { approvalId: approval.id } },
      h('div', { class: 'line' }, h('b', { text: approval.tool }), h('span', { text: ` by ${approval.agentId} in ${approval.taskId}` })),
      args,
      h(
        'div',
        { class: 'bar' },
        h('button', { text: 'Approve', data: { action: 'approve' }, onclick: () => decide({ action: 'approve' }) }),
        h('button', { text: 'Reject', data: { action: 'reject' }, onclick: () => decide({ action: 'reject', message: 'rejected in the dashboard' }) }),
        edit,
      ),
      error,
    );
  }
}
