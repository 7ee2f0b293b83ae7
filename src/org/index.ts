export { openOrgStore } from './store.js';
export type { CommitListener, OrgStore, OrgStoreOptions } from './types.js';
export type { QuarantineEntry } from './quarantine.js';
export { currentSchemaVersion, type Migrations } from './migrations.js';
export * from './schemas.js';
export { sessionConversationKey } from './keys.js';
export * from './artifacts/index.js';
