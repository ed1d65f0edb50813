// Preloaded with `--import` into a Gatehouse process by the process-footprint scenario (never in a measured-RSS
// process): records every module file the process loads, ESM and CommonJS alike, through Node's synchronous module
// hooks, and writes the list to BENCH_MODULE_LIST_DIR/<pid>.json when the process exits.

import cluster from 'node:cluster';
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => {
  const dir = process.env.BENCH_MODULE_LIST_DIR;
  if (!dir) return;
  // A multi-worker node's short-lived database preparation is a cluster worker too (src/prepare-in-child.ts).
  const role = process.env.GATEHOUSE_PREPARE_ONLY ? 'preparation' : cluster.isWorker ? 'worker' : 'primary';
  writeFileSync(`${dir}/${process.pid}.json`, JSON.stringify({ role, files: [...loaded] }));
});
