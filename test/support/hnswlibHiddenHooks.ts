/** Node's module hooks that `hnswlibHidden.ts` registers: `hnswlib-node` does not resolve. */
type NextResolve = (specifier: string, context: unknown) => Promise<unknown>;

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<unknown> {
  if (specifier === 'hnswlib-node') throw Object.assign(new Error("Cannot find package 'hnswlib-node'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return nextResolve(specifier, context);
}
