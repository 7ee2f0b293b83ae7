import { writeFile } from 'node:fs/promises';
import { generateOpenApiTypes, generatedTypesPath } from '../test/support/openapiClientTypes.js';

// Rewrites the checked-in client types after the HTTP API changed (test/server/openapi.test.ts says when).
await writeFile(generatedTypesPath, await generateOpenApiTypes());
console.log(`wrote ${generatedTypesPath.pathname}`);
