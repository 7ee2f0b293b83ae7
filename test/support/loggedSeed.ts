/**
 * fast-check parameters with a seed that is printed, so a run that fails (on any machine) can be
 * replayed exactly: `FC_SEED=<seed> npx vitest run <file>`.
 */
export function loggedSeed(what: string, numRuns = 100): { seed: number; numRuns: number } {
  const given = process.env['FC_SEED'];
  const seed = given === undefined ? Date.now() % 2_147_483_647 : Number(given);
  console.log(`${what}: fast-check seed ${seed} (${numRuns} runs; replay with FC_SEED=${seed})`);
  return { seed, numRuns };
}
