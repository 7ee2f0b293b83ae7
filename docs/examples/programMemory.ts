import { createRuntime } from 'troupe';

// Offline: the runtime's own model and embedder, memory only.
const rt = await createRuntime();

const fact = await rt.remember('root', { text: 'The user prefers answers in French.', metadata: { source: 'crm-7' } });
const report = await rt.importMemory('root', [
  { text: 'Invoices go out on the 1st.', importance: 0.8 },
  { kind: 'turn', speaker: 'Ana', text: 'My sister Lena lives in Porto.', at: '2024-03-01T10:00:00Z', conversation: 'chat-9' },
]);
console.log(`stored ${report.stored}, merged ${report.merged}`);

const found = await rt.memory('root', { search: 'Where does Lena live?', k: 1 });
console.log(found.entries[0]?.text, found.entries[0]?.tier === 'l4' ? found.entries[0].metadata : undefined);

await rt.forget('root', fact.id);
await rt.shutdown();
