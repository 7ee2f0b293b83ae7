export { ArtifactStore, type StoredArtifact, type TaskArtifact } from './artifactStore.js';
export type { ArtifactLimits } from './artifactLimits.js';
export type { ArtifactRef, ArtifactTable } from './artifactRecords.js';
export { lmdbArtifactTable, artifactSubDbs } from './lmdbArtifactTable.js';
export { memoryArtifactTable } from './memoryArtifactTable.js';
