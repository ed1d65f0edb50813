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
//
// The shebang finds whatever `node` is first on PATH, often the system's, which may be older than the Node 24 the
// project pins through the `node` npm package (`npm start` and `npx` put node_modules/.bin first; a plain
// `./src/gatehouse.mjs` does not). On an older Node this file re-runs itself with the pinned Node, or says in one
// line what to run instead. Until that check, it uses only what every Node with top-level await has: a named import
// such as `enableCompileCache` (Node 22.1) would fail when the module is linked, before any line of it runs.
import { accessSync, constants, realpathSync } from 'node:fs';
import nodeModule from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
/** EX_UNAVAILABLE (sysexits.h): something this command needs is missing, here Node.js 24. */
const EXIT_UNAVAILABLE = 69;
/** The signals an operator or a service manager sends; each is passed on to the re-run process once. */
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];

/** The project's pinned Node (the `node` package), or null when it is not installed or is this very Node. */
function pinnedNode(root) {
  const current = realpathSync(process.execPath);
  for (const candidate of [
    path.join(root, 'node_modules', 'node', 'bin', 'node'),
    path.join(root, 'node_modules', '.bin', 'node'),
  ]) {
    try {
      accessSync(candidate, constants.X_OK);
      if (realpathSync(candidate) !== current) return candidate;
    } catch {
      // not installed here
    }
  }
  return null;
}

/** Runs this file again on `node` with the same start options, arguments and stdio; mirrors how it ends. */
async function rerunOn(node) {
  // Loaded only here: the server on the right Node does not need it.
  const { spawn } = await import('node:child_process');
  const child = spawn(node, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  const forward = (signal) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`gatehouse: cannot start ${node}: ${error.message}\n`);
    process.exit(EXIT_UNAVAILABLE);
  });
  child.on('exit', (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.off(name, forward);
    if (signal) {
      // End the way the child ended, so a shell or service manager sees the same signal (exit status 128 + n).
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
  const node = pinnedNode(root);
  if (node) await rerunOn(node);
  else {
    process.stderr.write(
      `gatehouse: needs Node.js ${REQUIRED_MAJOR} or later, but ${process.execPath} is ${process.version} and ${root}/node_modules has no pinned Node: run \`npm ci\` in ${root} (it installs Node ${REQUIRED_MAJOR}), or put Node.js ${REQUIRED_MAJOR} first on PATH\n`,
    );
    process.exit(EXIT_UNAVAILABLE);
  }
} else {
  process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
  nodeModule.enableCompileCache();
  await import('./main.ts');
}
