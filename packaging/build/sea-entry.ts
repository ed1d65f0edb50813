// The release executable's main script. It does what src/gatehouse.mjs does for a checkout before the application
// loads: size libuv's thread pool to the CPUs (libuv reads the variable when the pool first starts, which is later).
// The V8 option of that file's shebang line is in the SEA configuration's execArgv (packaging/build/sea.ts), and
// MALLOC_ARENA_MAX is set by the systemd unit. The import stays dynamic so it runs after the line above.
import { availableParallelism } from 'node:os';

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
void import('../../src/main.ts');
