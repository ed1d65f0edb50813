// server.workers = 2 against 1 on this machine, in the same run: client_credentials tokens (RS256 signing, CPU-bound
// on the event loop and the thread pool) at concurrency 32 on keep-alive connections, through the lean client. Both
// nodes run for the whole scenario and are measured in turn, so each round compares them under the same background
// load. Also the idle RSS of the whole node: the supervisor and its workers added up.
import { availableParallelism } from 'node:os';
import { FORM, form, formRequestsPerSecond, type OAuthBench, startOAuthBench } from '../helpers/oauth.ts';
import { ISSUER, processTree, processTreeRssMegabytes } from '../helpers/server.ts';
import { signInLoad } from '../helpers/sign-ins.ts';
import { type BenchContext, median, operationsPerSecond, type Scenario, sampled, withServerCpu } from '../lib.ts';

const nodeRss = (bench: OAuthBench) => processTreeRssMegabytes(bench.server.pid);

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

async function warmUpTokens(bench: OAuthBench, context: BenchContext) {
  const { errors } = await tokens(bench, context.warmUpMs);
  if (errors > 0) throw new Error(`warm-up: ${errors} unexpected token responses`);
}

const withWorkers = (workers: number) =>
  startOAuthBench({ settings: { server: { issuer: ISSUER, listen: '127.0.0.1:0', workers } } });

const SIGN_IN_CONCURRENCY = 16;

/** Sign-ins on each node in alternate rounds, each with the cores the node kept busy. */
async function signInsOnBoth(one: OAuthBench, two: OAuthBench, context: BenchContext) {
  const loads = [await signInLoad(one.server, SIGN_IN_CONCURRENCY), await signInLoad(two.server, SIGN_IN_CONCURRENCY)];
  const seconds = Math.max(context.roundMs, context.warmUpMs) / 1000;
  const rates: [number[], number[]] = [[], []];
  const cores: [number[], number[]] = [[], []];
  try {
    for (const load of loads) {
      await load.ensureAccounts(100, seconds);
      await operationsPerSecond(load.signIn, SIGN_IN_CONCURRENCY, context.warmUpMs);
    }
    await sampled(context.rounds, async () => {
      for (const [i, load] of loads.entries()) {
        const node = i === 0 ? one : two;
        await load.ensureAccounts(Math.max(100, ...rates[0], ...rates[1]), seconds);
        const r = await withServerCpu(node.server, async () => ({
          perSecond: await operationsPerSecond(load.signIn, SIGN_IN_CONCURRENCY, context.roundMs),
        }));
        rates[i as 0 | 1].push(r.perSecond);
        cores[i as 0 | 1].push((r.cpuMicrosPerRequest * r.perSecond) / 1e6);
      }
      return 0;
    });
  } finally {
    for (const load of loads) await load.close();
  }
  const done = loads.reduce((sum, load) => sum + load.counts().signIns, 0);
  return { rateOne: rates[0], rateTwo: rates[1], coresOne: cores[0], coresTwo: cores[1], done };
}

export const scenario: Scenario = {
  name: 'server-workers',
  description: `POST /oauth/token grant_type=client_credentials, concurrency 32, keep-alive, lean client, then local sign-ins (password + TOTP, concurrency 16): a node with server.workers = 2 against one with server.workers = 1, both running, measured in alternate rounds. Idle RSS is the whole node's (supervisor and workers). ${FORM['content-type']} bodies.`,
  async run(context: BenchContext) {
    const one = await withWorkers(1);
    const two = await withWorkers(2);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idleOne = nodeRss(one);
      const idleTwo = nodeRss(two);
      const processesTwo = processTree(two.server.pid).length;
      if (processesTwo !== 3) throw new Error(`the two-worker node has ${processesTwo} processes, not 3`);
      await warmUpTokens(one, context);
      await warmUpTokens(two, context);
      const rateOne: number[] = [];
      const rateTwo: number[] = [];
      const cpuOne: number[] = [];
      const coresOne: number[] = [];
      const coresTwo: number[] = [];
      const coresLoad: number[] = [];
      let errors = 0;
      await sampled(context.rounds, async () => {
        const own = process.cpuUsage();
        const started = performance.now();
        const a = await withServerCpu(one.server, () => tokens(one, context.roundMs));
        const spent = process.cpuUsage(own);
        coresLoad.push((spent.user + spent.system) / ((performance.now() - started) * 1000));
        rateOne.push(a.perSecond);
        cpuOne.push(a.cpuMicrosPerRequest);
        // CPU seconds per second: how many of the machine's cores the node kept busy at its saturation rate.
        coresOne.push((a.cpuMicrosPerRequest * a.perSecond) / 1e6);
        const b = await withServerCpu(two.server, () => tokens(two, context.roundMs));
        rateTwo.push(b.perSecond);
        coresTwo.push((b.cpuMicrosPerRequest * b.perSecond) / 1e6);
        errors += a.errors + b.errors;
        return 0;
      });
      if (errors > 0) throw new Error(`${errors} unexpected token responses`);
      const ratios = rateTwo.map((rate, i) => rate / (rateOne[i] as number));
      const signIns = await signInsOnBoth(one, two, context);
      return {
        metrics: [
          { name: 'client_credentials, server.workers = 1', unit: 'req/s', samples: rateOne },
          { name: 'client_credentials, server.workers = 2', unit: 'req/s', samples: rateTwo },
          { name: 'two workers / one, per round', unit: '×', samples: ratios },
          { name: 'server CPU per token, one worker', unit: 'µs', samples: cpuOne },
          { name: 'cores kept busy by the node, server.workers = 1', unit: 'cores', samples: coresOne },
          { name: 'cores kept busy by the node, server.workers = 2', unit: 'cores', samples: coresTwo },
          { name: 'cores kept busy by the load generator (this process)', unit: 'cores', samples: coresLoad },
          { name: 'sign-ins, server.workers = 1', unit: 'sign-ins/s', samples: signIns.rateOne },
          { name: 'sign-ins, server.workers = 2', unit: 'sign-ins/s', samples: signIns.rateTwo },
          {
            name: 'cores kept busy by the node signing in, server.workers = 1',
            unit: 'cores',
            samples: signIns.coresOne,
          },
          {
            name: 'cores kept busy by the node signing in, server.workers = 2',
            unit: 'cores',
            samples: signIns.coresTwo,
          },
          { name: 'idle RSS of the node, server.workers = 1', unit: 'MB', samples: [idleOne] },
          { name: 'idle RSS of the node, server.workers = 2 (supervisor + 2 workers)', unit: 'MB', samples: [idleTwo] },
        ],
        ratios: [
          {
            name: 'client_credentials: two workers / one',
            value: median(rateTwo) / median(rateOne),
            target: { atLeast: 1.6 },
          },
          {
            name: 'sign-in: two workers / one',
            value: median(signIns.rateTwo) / median(signIns.rateOne),
            target: { atLeast: 1.6 },
          },
        ],
        notes: [
          // One worker signs on libuv's thread pool (sized to the CPUs) beside its event loop, so it is not confined
          // to one core; two workers can at most add the cores one left idle.
          `This machine has ${availableParallelism()} cores. One worker kept ${median(coresOne).toFixed(2)} of them busy at its saturation rate, and the load generator sending its requests ${median(coresLoad).toFixed(2)}: two workers could at most reach ${((availableParallelism() - median(coresLoad)) / median(coresOne)).toFixed(2)}× one worker's rate here. They kept ${median(coresTwo).toFixed(2)} busy.`,
          // argon2id runs on the same pool, so a sign-in load fills the cores from one process too.
          `Signing in (argon2id on the thread pool), one worker kept ${median(signIns.coresOne).toFixed(2)} cores busy and two workers ${median(signIns.coresTwo).toFixed(2)}; ${signIns.done} sign-ins, all 200.`,
        ],
      };
    } finally {
      await two.server.stop();
      await one.server.stop();
    }
  },
};
