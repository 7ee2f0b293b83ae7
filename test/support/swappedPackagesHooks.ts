/** Node's module hooks that `swappedPackages.ts` registers, with its swaps as their data. */
interface Resolved {
  readonly url: string;
}
type NextResolve = (specifier: string, context: unknown) => Promise<Resolved>;

let swapped: Record<string, string | null> = {};

export function initialize(data: Record<string, string | null>): void {
  swapped = data;
}

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<Resolved> {
  const instead = swapped[specifier];
  const resolved = instead === null ? undefined : await nextResolve(instead ?? specifier, context);
  // A missing package is missing by any path to it too (vitest imports packages by their file's path).
  const missing = Object.keys(swapped).find(
    (name) => swapped[name] === null && (name === specifier || resolved?.url.includes(`/node_modules/${name}/`) === true),
  );
  if (missing !== undefined || resolved === undefined)
    throw Object.assign(new Error(`Cannot find package '${missing ?? specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  return resolved;
}
