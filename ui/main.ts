import './style.css';
import { AgentPanel } from './agentView.js';
import { Api, ApiError } from './api.js';
import { ApprovalsView } from './approvalsView.js';
import { h } from './dom.js';
import { OrgView } from './orgView.js';
import { followEvents } from './stream.js';
import { TimelineView } from './timelineView.js';

// The dashboard (docs/dashboard.md): the organisation on the left; a Task's timeline, an agent,
// and the approvals waiting on the right; all kept live by one event stream.

const api = new Api();
const status = h('span', { class: 'connection', data: { field: 'connection' }, text: 'connecting' });
const approvalCount = h('span', { class: 'count' });
const timeline = new TimelineView(api);
const approvals = new ApprovalsView(api, approvalCount);
const panel = new AgentPanel(api);
const tabs = new Map<string, HTMLElement>([
  ['timeline', timeline.element],
  ['agent', panel.element],
  ['approvals', approvals.element],
]);
const pane = h('div', { class: 'pane' });
const tabBar = h('nav', { class: 'tabs' });
const showTab = (name: string): void => {
  pane.replaceChildren(tabs.get(name) ?? timeline.element);
  for (const button of tabBar.children) button.classList.toggle('on', (button as HTMLElement).dataset['tab'] === name);
};
for (const name of tabs.keys()) {
  tabBar.append(
    h(
      'button',
      { data: { tab: name }, text: `${name.charAt(0).toUpperCase()}${name.slice(1)}`, onclick: () => showTab(name) },
      ...(name === 'approvals' ? [approvalCount] : []),
    ),
  );
}
const org = new OrgView(
  api,
  (id) => {
    const agent = org.agent(id);
    if (agent === undefined) return;
    showTab('agent');
    void panel.show(agent);
  },
  (agent) => panel.changed(agent),
);

/** Asks for the token when the API refused the one kept (or there was none), then starts again with it. */
function askForToken(): void {
  const input = h('input', { data: { field: 'token' } });
  input.type = 'password';
  input.placeholder = 'TROUPE_TOKEN';
  const form = h('form', { class: 'token' }, h('p', { text: 'This server needs its token (kept in this browser).' }), input, h('button', { text: 'Connect' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api.token = input.value.trim();
    location.reload();
  });
  document.body.replaceChildren(form);
  input.focus();
}

/** Everything shown, read afresh: at the start, and whenever the stream had a gap. False when the token was refused. */
async function resync(): Promise<boolean> {
  try {
    await Promise.all([org.load(), approvals.load()]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      askForToken();
      return false;
    }
    // Otherwise the server is away: the stream's reconnection brings the next resync.
  }
  return true;
}

document.body.append(h('header', {}, h('h1', { text: 'troupe' }), status), h('main', {}, org.element, h('div', { class: 'side' }, tabBar, pane)));
showTab('timeline');
void resync().then((authorized) => {
  if (!authorized) return;
  followEvents(api, {
    task: (task) => {
      org.touch(task.from);
      org.touch(task.to);
      if (task.action === 'agent.spawned' && typeof task.parameters['agentId'] === 'string') org.touch(task.parameters['agentId'], true);
      if (task.from === 'user' && task.action === 'execute' && task.status === 'submitted') timeline.offer(task.sessionId);
      timeline.task(task);
    },
    approval: () => approvals.reload(),
    resync: () => void resync(),
    status: (state) => {
      status.textContent = state;
      status.dataset['state'] = state;
    },
  });
});
