import type { RootDatabase } from 'lmdb';
import { systemClock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { ArtifactLimitsSchema } from './artifactLimits.js';
import { ArtifactStore } from './artifactStore.js';
import { lmdbArtifactTable } from './lmdbArtifactTable.js';

/** The artifacts of an org store opened to read them (the CLI's views): its limits are the defaults, which reads never meet. */
export function artifactReader(environment: RootDatabase, logger: Logger): ArtifactStore {
  return new ArtifactStore(lmdbArtifactTable(environment), { limits: ArtifactLimitsSchema.parse({}), logger, clock: systemClock });
}
