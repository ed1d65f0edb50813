// The release executable's main script. It does what src/gatehouse.mjs does for a checkout before the application
// loads: size libuv's thread pool to the CPUs (libuv reads the variable when the pool first starts, which is later).
// The V8 option of that file's shebang line is in the SEA configuration's execArgv (packaging/build/sea.ts), and
// MALLOC_ARENA_MAX is set by the systemd unit. The import stays dynamic so it runs after the lines above.
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';

// A worker of the supervisor (server.workers, src/supervisor.ts) is this executable run again by node:cluster, which
// puts its "script", here the executable's own path, before the supervisor's arguments: take it out, so the worker
// reads the same command line as the supervisor did.
if (cluster.isWorker && process.argv[2] === process.execPath) process.argv.splice(2, 1);
process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
void import('../../src/main.ts');
