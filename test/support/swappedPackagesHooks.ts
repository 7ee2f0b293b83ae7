/** Node's module hooks that `swappedPackages.ts` registers, with its swaps as their data. */
type NextResolve = (specifier: string, context: unknown) => Promise<unknown>;

let swapped: Record<string, string | null> = {};

export function initialize(data: Record<string, string | null>): void {
  swapped = data;
}

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<unknown> {
  const instead = swapped[specifier];
  if (instead === null) throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  return nextResolve(instead ?? specifier, context);
}
