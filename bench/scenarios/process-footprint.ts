// What a node costs in memory and in loaded code: the idle RSS of a one-worker node (one process) and of a
// two-worker node's supervisor and workers, the one-worker node's RSS after a bounded client_credentials load, and
// the module files each kind of process loads. RSS counts the pages of the node executable each process touched
// (about 35 MB for a bare Node 24 here, shared between the processes of a node); the private memory (anonymous pages,
// what each process adds on its own) is reported beside it.
//
// Module lists come from a separate two-worker node started with bench/helpers/count-modules.mjs preloaded (Node's
// module hooks), so the hooks never weigh on a measured RSS. The release executable, which the installed service
// runs, is measured at idle too when `npm run release` has built a bundle for this machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { form, formRequestsPerSecond, type OAuthBench, startOAuthBench } from '../helpers/oauth.ts';
import { ISSUER, processRssMegabytes, processTree, type StartServerOptions, startServer } from '../helpers/server.ts';
import { type BenchContext, median, type Scenario, sampled } from '../lib.ts';

const COUNTER = fileURLToPath(new URL('../helpers/count-modules.mjs', import.meta.url));

/** Issue 37 asks for the RSS after a minute of load: the rounds are lengthened until together they last one. */
const LOADED_FOR_MS = 60_000;

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A field of /proc/PID/smaps_rollup in MB. */
function rollupMegabytes(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
}

/** Anonymous (private, not file-backed) memory of a process in MB. */
const anonymousMegabytes = (pid: number) => rollupMegabytes(pid, 'Anonymous');

/**
 * PSS (proportional set size): RSS with each shared page divided among the processes that map it, so the pages of the
 * node executable that the supervisor and its workers all touched count once across them. Beside RSS, not instead.
 */
const pssMegabytes = (pid: number) => rollupMegabytes(pid, 'Pss');

const nodeSettings = (workers: number) => ({
  settings: { server: { issuer: ISSUER, listen: '127.0.0.1:0', workers } },
});

const tokens = (bench: OAuthBench, durationMs: number) =>
  formRequestsPerSecond(
    bench.server.url,
    '/oauth/token',
    form({
      grant_type: 'client_credentials',
      client_id: bench.service.clientId,
      client_secret: bench.service.secret,
      scope: 'read',
      resource: bench.service.audience,
    }),
    32,
    durationMs,
  );

interface Idle {
  rss: number;
  anon: number;
  pss: number;
}

const idleOf = (pid: number): Idle => ({
  rss: processRssMegabytes(pid),
  anon: anonymousMegabytes(pid),
  pss: pssMegabytes(pid),
});

/**
 * A one-worker node's idle memory (after listening, one token request and 2 s), over `starts` starts one after
 * another, the last left running. A node's idle RSS moves by several MB from one start to the next, and stays where
 * it started (which pages of the executable it touched, where V8's collections fell): each start is a sample.
 */
async function idleStarts(
  options: StartServerOptions,
  starts: number,
): Promise<{ samples: Idle[]; bench: OAuthBench }> {
  const samples: Idle[] = [];
  for (let start = 1; ; start++) {
    const bench = await startOAuthBench(options);
    try {
      await tokens(bench, 50);
      await settle(2000);
      samples.push(idleOf(bench.server.pid));
    } catch (error) {
      await bench.server.stop();
      throw error;
    }
    if (start >= starts) return { samples, bench };
    await bench.server.stop();
  }
}

interface ModuleList {
  role: 'primary' | 'worker' | 'preparation';
  files: string[];
}

/**
 * The files a two-worker node's supervisor, first worker and short-lived database preparation (src/prepare-in-child.ts)
 * load, up to listening and one token request.
 */
async function moduleLists(): Promise<{ primary: string[]; worker: string[]; preparation: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bench-modules-'));
  const saved = { list: process.env.BENCH_MODULE_LIST_DIR, flags: process.env.BENCH_SERVER_NODE_FLAGS };
  process.env.BENCH_MODULE_LIST_DIR = dir;
  process.env.BENCH_SERVER_NODE_FLAGS = `--import=${COUNTER}`;
  try {
    const server = await startServer(nodeSettings(2));
    process.env.BENCH_MODULE_LIST_DIR = saved.list;
    process.env.BENCH_SERVER_NODE_FLAGS = saved.flags;
    if (saved.list === undefined) delete process.env.BENCH_MODULE_LIST_DIR;
    if (saved.flags === undefined) delete process.env.BENCH_SERVER_NODE_FLAGS;
    await server.stop();
    const lists = readdirSync(dir).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as ModuleList);
    const primary = lists.find((l) => l.role === 'primary');
    const worker = lists.find((l) => l.role === 'worker');
    const preparation = lists.find((l) => l.role === 'preparation');
    if (!primary || !worker || !preparation)
      throw new Error('the module lists of the supervisor, a worker and the preparation were not written');
    return { primary: primary.files, worker: worker.files, preparation: preparation.files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const RELEASES = fileURLToPath(new URL('../../dist/release/', import.meta.url));

/**
 * bin/gatehouse of the newest bundle `npm run release` left for this architecture (dist/release/<channel>/<version>/),
 * unpacked into a directory of its own; null when there is none.
 */
function releaseExecutable(): { file: string; bundle: string; remove(): void } | null {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  let bundles: string[] = [];
  try {
    bundles = readdirSync(RELEASES, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith(`-linux-${arch}.tar.gz`))
      .map((file) => path.join(RELEASES, file));
  } catch {
    return null;
  }
  const newest = bundles.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bench-release-'));
  execFileSync('tar', ['-xzf', newest, '-C', dir, '--strip-components=1']);
  return {
    file: path.join(dir, 'bin/gatehouse'),
    bundle: path.relative(fileURLToPath(new URL('../../', import.meta.url)), newest),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Idle RSS, private memory and PSS (MB) of a one-worker node of the release executable and its RSS after each round of
 * the same load as the launcher's node, then the RSS and private memory of its supervisor in a two-worker node, as
 * `idle` measures the rest.
 */
async function releaseFootprint(executable: string, rounds: number, roundMs: number) {
  const { samples, bench } = await idleStarts({ ...nodeSettings(1), executable }, Math.max(3, rounds));
  let loaded: number[];
  try {
    loaded = await sampled(rounds, async () => {
      const round = await tokens(bench, roundMs);
      if (round.errors > 0) throw new Error(`${round.errors} unexpected token responses from the release executable`);
      return processRssMegabytes(bench.server.pid);
    });
  } finally {
    await bench.server.stop();
  }
  // Started after the first has stopped: running together, they would share the executable's pages (PSS).
  const two = await startServer({ ...nodeSettings(2), executable });
  try {
    await settle(2000);
    return { samples, loaded, supervisor: processRssMegabytes(two.pid), supervisorAnon: anonymousMegabytes(two.pid) };
  } finally {
    await two.stop();
  }
}

/** Files per package (node_modules) or "gatehouse" (src/), the largest first. */
function byPackage(files: string[], top = 8): string {
  const counts = new Map<string, number>();
  for (const url of files) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes('/src/') ? 'gatehouse' : 'other');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}

export const scenario: Scenario = {
  name: 'process-footprint',
  description:
    'Idle RSS (after listening and one token request, 2 s settled; of at least three starts for a one-worker node, the median reported) of a node with server.workers = 1 (one process), of the supervisor and a worker of a node with server.workers = 2, and of the one-worker node and the supervisor of a two-worker node run by the release executable (when dist/release has a bundle for this machine); the one-worker node (launcher and executable) under client_credentials load (concurrency 32) for the rounds, lengthened to a minute in all, its RSS read after each round; module files loaded by the supervisor and a worker. Compile cache warm (a restart).',
  async run(context: BenchContext) {
    // Also the cold start that fills the run's compile cache: every measured node below is a restart.
    const modules = await moduleLists();

    const { samples: oneIdle, bench: one } = await idleStarts(nodeSettings(1), Math.max(3, context.rounds));
    const two = await startServer(nodeSettings(2));
    let twoStopped: Promise<void> | null = null;
    const stopTwo = () => (twoStopped ??= two.stop());
    try {
      await tokens(one, 50);
      await settle(2000);
      const [supervisor, ...workers] = processTree(two.pid);
      if (workers.length !== 2) throw new Error(`the two-worker node has ${workers.length} workers, not 2`);
      const idle = {
        one: median(oneIdle.map((sample) => sample.rss)),
        supervisor: processRssMegabytes(supervisor as number),
        supervisorAnon: anonymousMegabytes(supervisor as number),
        supervisorPss: pssMegabytes(supervisor as number),
        workerPss: median(workers.map(pssMegabytes)),
        worker: median(workers.map(processRssMegabytes)),
        workerAnon: median(workers.map(anonymousMegabytes)),
        node2: processTree(two.pid).reduce((sum, pid) => sum + processRssMegabytes(pid), 0),
      };
      await stopTwo();
      const roundMs = Math.max(context.roundMs, Math.ceil(LOADED_FOR_MS / context.rounds));
      const release = releaseExecutable();
      let released: (Awaited<ReturnType<typeof releaseFootprint>> & { rss: number }) | null = null;
      try {
        if (release) {
          const measured = await releaseFootprint(release.file, context.rounds, roundMs);
          released = { ...measured, rss: median(measured.samples.map((sample) => sample.rss)) };
        }
      } finally {
        release?.remove();
      }

      let errors = 0;
      const rates: number[] = [];
      const loaded = await sampled(context.rounds, async () => {
        const round = await tokens(one, roundMs);
        errors += round.errors;
        rates.push(round.perSecond);
        return processRssMegabytes(one.server.pid);
      });
      if (errors > 0) throw new Error(`${errors} unexpected token responses`);
      await settle(2000);
      const afterLoad = processRssMegabytes(one.server.pid);
      const peak = Math.max(...loaded);
      return {
        metrics: [
          { name: 'idle RSS, server.workers = 1 (one process)', unit: 'MB', samples: oneIdle.map((x) => x.rss) },
          {
            name: 'idle private (anonymous) memory, server.workers = 1',
            unit: 'MB',
            samples: oneIdle.map((x) => x.anon),
          },
          { name: 'idle RSS, supervisor of server.workers = 2', unit: 'MB', samples: [idle.supervisor] },
          { name: 'idle private memory, supervisor', unit: 'MB', samples: [idle.supervisorAnon] },
          {
            name: 'idle PSS (shared pages divided), server.workers = 1',
            unit: 'MB',
            samples: oneIdle.map((x) => x.pss),
          },
          { name: 'idle PSS (shared pages divided), supervisor', unit: 'MB', samples: [idle.supervisorPss] },
          { name: 'idle PSS (shared pages divided), a worker', unit: 'MB', samples: [idle.workerPss] },
          { name: 'idle RSS, a worker of server.workers = 2', unit: 'MB', samples: [idle.worker] },
          { name: 'idle private memory, a worker', unit: 'MB', samples: [idle.workerAnon] },
          { name: 'idle RSS, whole node with server.workers = 2', unit: 'MB', samples: [idle.node2] },
          ...(released
            ? [
                {
                  name: 'idle RSS, the release executable, server.workers = 1',
                  unit: 'MB',
                  samples: released.samples.map((x) => x.rss),
                },
                {
                  name: 'idle private memory, the release executable',
                  unit: 'MB',
                  samples: released.samples.map((x) => x.anon),
                },
                { name: 'idle PSS, the release executable', unit: 'MB', samples: released.samples.map((x) => x.pss) },
                {
                  name: 'idle RSS, supervisor of server.workers = 2, the release executable',
                  unit: 'MB',
                  samples: [released.supervisor],
                },
                {
                  name: 'idle private memory, supervisor, the release executable',
                  unit: 'MB',
                  samples: [released.supervisorAnon],
                },
                {
                  name: 'RSS after each round of load, the release executable, server.workers = 1',
                  unit: 'MB',
                  samples: released.loaded,
                },
              ]
            : []),
          { name: 'client_credentials during the load, server.workers = 1', unit: 'req/s', samples: rates },
          { name: 'RSS after each round of load, server.workers = 1', unit: 'MB', samples: loaded },
          { name: 'RSS 2 s after the load, server.workers = 1', unit: 'MB', samples: [afterLoad] },
          { name: 'module files loaded, supervisor', unit: 'files', samples: [modules.primary.length] },
          { name: 'module files loaded, worker', unit: 'files', samples: [modules.worker.length] },
          {
            name: 'module files loaded, database preparation (exits before the workers start)',
            unit: 'files',
            samples: [modules.preparation.length],
          },
        ],
        ratios: [
          { name: 'idle RSS, one worker (MB)', value: idle.one, target: { atMost: 90 } },
          { name: 'idle RSS, supervisor (MB)', value: idle.supervisor, target: { atMost: 40 } },
          {
            // Against the idle of the process that was loaded: a node's idle moves from one start to the next.
            name: 'RSS under load (highest round) / idle, one worker',
            value: peak / (oneIdle.at(-1) as Idle).rss,
            target: { atMost: 1.2 },
          },
          // The installed service runs the release executable (docs/operations.md): the same targets, measured on it.
          ...(released
            ? [
                {
                  name: 'idle RSS, one worker, the release executable (MB)',
                  value: released.rss,
                  target: { atMost: 90 },
                },
                {
                  name: 'idle RSS, supervisor, the release executable (MB)',
                  value: released.supervisor,
                  target: { atMost: 40 },
                },
                {
                  name: 'RSS under load (highest round) / idle, one worker, the release executable',
                  value: Math.max(...released.loaded) / (released.samples.at(-1) as Idle).rss,
                  target: { atMost: 1.2 },
                },
              ]
            : []),
        ],
        notes: [
          `Supervisor loads: ${byPackage(modules.primary)}.`,
          `A worker loads: ${byPackage(modules.worker, 14)}.`,
          `The database preparation loads: ${byPackage(modules.preparation)}.`,
          `${context.rounds} rounds of ${roundMs} ms of load (at least ${LOADED_FOR_MS / 1000} s in all).`,
          release
            ? `The release executable is bin/gatehouse of ${release.bundle}, the newest bundle for this machine in dist/release (built by the last \`npm run release\`, not necessarily from this checkout): its own V8 options, no compile cache (its main script is one bundle).`
            : 'The release executable was not measured: no bundle for this architecture in dist/release (`npm run release` builds one).',
        ],
      };
    } finally {
      await stopTwo();
      await one.server.stop();
    }
  },
};
