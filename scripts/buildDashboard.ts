import { pathToFileURL } from 'node:url';
import { dashboardBudgetBytes, writeDashboard } from '../src/server/dashboardAssets.js';

// `npm run build`'s last step: the dashboard's bundle into dist/ui/ (or the folder given), where
// the compiled server serves it from (docs/dashboard.md). Fails past the size budget.
const out = pathToFileURL(`${process.argv[2] ?? 'dist/ui'}/`);
const { script, style } = await writeDashboard(new URL('../ui/', import.meta.url), out);
process.stdout.write(
  `dashboard: dashboard.js ${String(script)} B + dashboard.css ${String(style)} B in ${out.pathname} (budget ${String(dashboardBudgetBytes)} B)\n`,
);
if (script + style > dashboardBudgetBytes) {
  process.stderr.write(`the dashboard's bundle is ${String(script + style)} B, over its budget of ${String(dashboardBudgetBytes)} B\n`);
  process.exitCode = 1;
}
