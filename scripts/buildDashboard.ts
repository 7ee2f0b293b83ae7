import { mkdir, writeFile } from 'node:fs/promises';
import { bundleDashboard, dashboardBudgetBytes } from '../src/server/dashboardAssets.js';

// `npm run build`'s last step: the dashboard's bundle into dist/ui/, where the compiled server
// serves it from (docs/dashboard.md). Fails past the size budget.
const out = new URL('../dist/ui/', import.meta.url);
const { script, style } = await bundleDashboard(new URL('../ui/', import.meta.url));
const bytes = Buffer.byteLength(script) + Buffer.byteLength(style);
await mkdir(out, { recursive: true });
await writeFile(new URL('dashboard.js', out), script);
await writeFile(new URL('dashboard.css', out), style);
process.stdout.write(
  `dashboard: dist/ui/dashboard.js ${Buffer.byteLength(script)} B, dashboard.css ${Buffer.byteLength(style)} B (budget ${dashboardBudgetBytes} B)\n`,
);
if (bytes > dashboardBudgetBytes) {
  process.stderr.write(`the dashboard's bundle is ${bytes} B, over its budget of ${dashboardBudgetBytes} B\n`);
  process.exitCode = 1;
}
