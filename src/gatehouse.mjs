#!/usr/bin/env node
// The installed `gatehouse` command and `npm start`. Plain JavaScript on purpose, and only this file: it turns on
// Node's on-disk compile cache before the first TypeScript module loads, so a restart reads every module already
// type-stripped and compiled instead of loading the TypeScript stripper (a WebAssembly module of about 17 MB that
// stays resident) and stripping each file again. `node src/main.ts` still works, without the cache. The cache lives
// in NODE_COMPILE_CACHE if set, else under the system temporary directory; it is keyed by file content and Node
// version, so a stale entry is never used.
//
// It also keeps two startup effects out of the long-running process. Loading is an allocation pattern where nearly
// everything survives, which makes V8 double the young generation up to its maximum (two 16 MB semi-spaces) that
// an idle server then keeps for good; and loading and schema compilation run loops hot enough for V8's optimizing
// compilers (Maglev, TurboFan), whose code and compiler memory (about 12 MB resident) serve nothing afterwards. So
// growth is held and both compilers are off until `serve` listens (src/server.ts turns them back on), after which
// the request paths are optimized as usual (measured: the same CPU per request under load).
//
// And it sizes libuv's thread pool to the CPUs unless UV_THREADPOOL_SIZE says otherwise. The pool runs RSA signing
// and argon2id, which keep a CPU busy each; with the default four threads on a two-CPU machine the scheduler
// shares the CPUs among the busy pool threads and the event loop alike, so the event loop (which accepts and
// answers every request) got a third of a CPU and became the bottleneck of the token endpoint. More pool threads
// than CPUs adds no crypto throughput.
import { enableCompileCache } from 'node:module';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
enableCompileCache();
setFlagsFromString('--semi-space-growth-factor=1');
setFlagsFromString('--no-turbofan');
setFlagsFromString('--no-maglev');
await import('./main.ts');
