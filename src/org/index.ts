export { openOrgStore } from './store.js';
export type { OrgStore, OrgStoreOptions, NewRole, NewAgent, AgentPatch, NewTermination, NewArtifact, Page } from './types.js';
export type { QuarantineEntry } from './quarantine.js';
export { currentSchemaVersion, orgMigrations, type Migration, type Migrations, type MigrationTxn } from './migrations.js';
export { artifactHash } from './validators.js';
export type { WriteFault } from './writer.js';
export * from './schemas.js';
