import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { openApiDocument } from '../../src/server/openapi.js';

/** Where the generated types are checked in: the client test type-checks against them. */
export const generatedTypesPath = new URL('./openapi.generated.ts', import.meta.url);

/**
 * The TypeScript types openapi-typescript generates from the server's OpenAPI document, in the
 * house format. The checked-in file must equal this: `npx tsx scripts/openapiTypes.ts` rewrites it.
 */
export async function generateOpenApiTypes(): Promise<string> {
  const document = openApiDocument('0.0.0');
  const ast = await openapiTS(structuredClone(document) as unknown as Parameters<typeof openapiTS>[0]);
  const text = `// Generated from the OpenAPI document by openapi-typescript: do not edit (npx tsx scripts/openapiTypes.ts).\n${astToString(ast)}`;
  const config = await resolveConfig(generatedTypesPath);
  return format(text, { ...config, filepath: generatedTypesPath.pathname });
}
