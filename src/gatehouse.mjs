#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2
// The installed `gatehouse` command and `npm start`. Plain JavaScript on purpose, and only this file: it turns on
// Node's on-disk compile cache before the first TypeScript module loads, so a restart reads every module already
// type-stripped and compiled instead of loading the TypeScript stripper (a WebAssembly module of about 17 MB that
// stays resident) and stripping each file again. `node src/main.ts` still works, without the cache. The cache lives
// in NODE_COMPILE_CACHE if set, else under the system temporary directory; it is keyed by file content and Node
// version, so a stale entry is never used.
//
// It also sizes libuv's thread pool to the CPUs unless UV_THREADPOOL_SIZE says otherwise. The pool runs RSA signing
// and argon2id, which keep a CPU busy each; with the default four threads on a two-CPU machine the scheduler
// shares the CPUs among the busy pool threads and the event loop alike, so the event loop (which accepts and
// answers every request) got a third of a CPU and became the bottleneck of the token endpoint. More pool threads
// than CPUs adds no crypto throughput. libuv reads the variable when the pool first starts, which is later.
//
// V8 flags are not changed here: Node documents that changing them after the VM has started may crash or do nothing,
// and an identity provider does not take that risk for a few megabytes (docs/decisions.md). What the process needs
// from the start is on the shebang line above, the one place it is written: `npm start` and `npm run gatehouse` run
// this file through it, and the bench reads it from there (docs/decisions.md, "Idle RSS: start options on the
// launcher's shebang"). --max-semi-space-size=2 caps V8's young generation at 2 MB per semi-space: it grew to 16 MB
// while modules loaded and was never given back (about 20 MB of idle RSS). MALLOC_ARENA_MAX=2 keeps glibc from
// giving each thread (event loop, thread pool, V8 workers) a malloc arena of its own (2 to 8 MB more). Neither
// changed the token endpoint's throughput or CPU per token.
import { enableCompileCache } from 'node:module';
import { availableParallelism } from 'node:os';

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
enableCompileCache();
await import('./main.ts');
