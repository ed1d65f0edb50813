// The single-use check of DPoP proof and client assertion jtis alone, without HTTP or signatures: 32 concurrent
// requesters with fresh keys through this process's replay guard (one INSERT per batch of waiting keys), against the
// reference of one INSERT per check, the statement the guard replaced, in the same rounds. What each check costs this
// process and the database's backends, and how many keys share a statement.
import { randomUUID } from 'node:crypto';
import { createJtiReplayGuard } from '../../src/oauth/jti-replay-guard.ts';
import { storedKey } from '../../src/oauth/used-jti-store.ts';
import { backendCpuSecondsSince, backendCpuSnapshot } from '../helpers/server.ts';
import { benchDatabase, median, operationsPerSecond, type Scenario, sampled } from '../lib.ts';

const CONCURRENCY = 32;

export const scenario: Scenario = {
  name: 'jti-replay-store',
  description: `Single use of DPoP proof jtis in PostgreSQL (oauth_used_jtis), concurrency ${CONCURRENCY}, a fresh key per check: the batching replay guard against one INSERT … ON CONFLICT DO NOTHING per check (the reference). CPU per check of this process and of the database's backends.`,
  async run(context) {
    const database = await benchDatabase();
    const { sql } = database;
    try {
      const guard = createJtiReplayGuard(sql, () => new Date());
      const oneStatementEach = async (key: string, expiresAt: Date) =>
        (
          await sql`insert into oauth_used_jtis (key, expires_at) values (decode(${storedKey(key)}, 'hex'), ${expiresAt})
                    on conflict (key) do nothing returning key`
        ).length > 0;
      const thumbprint = 'x'.repeat(43);
      const check = (consume: (key: string, expiresAt: Date) => Promise<boolean>) => async () => {
        if (!(await consume(`dpop:${thumbprint}:${randomUUID()}`, new Date(Date.now() + 70_000))))
          throw new Error('a fresh key was refused');
      };
      const loads = { guard: check(guard.consume), reference: check(oneStatementEach) };
      type Load = keyof typeof loads;
      const series = () => ({ guard: [], reference: [] }) as Record<Load, number[]>;
      const rate = series();
      const ownCpu = series();
      const databaseCpu = series();
      for (const load of Object.values(loads)) await operationsPerSecond(load, CONCURRENCY, context.warmUpMs);
      await sampled(context.rounds, async () => {
        for (const [name, load] of Object.entries(loads) as [Load, () => Promise<void>][]) {
          const backends = await backendCpuSnapshot(sql);
          const own = process.cpuUsage();
          const start = performance.now();
          const perSecond = await operationsPerSecond(load, CONCURRENCY, context.roundMs);
          const checks = perSecond * ((performance.now() - start) / 1000);
          const { user, system } = process.cpuUsage(own);
          rate[name].push(perSecond);
          ownCpu[name].push((user + system) / checks);
          databaseCpu[name].push(((await backendCpuSecondsSince(sql, backends)) * 1e6) / checks);
        }
        return 0;
      });
      const total = (name: Load) => median(ownCpu[name]) + median(databaseCpu[name]);
      return {
        metrics: [
          { name: 'checks, batched (guard)', unit: 'checks/s', samples: rate.guard },
          { name: 'checks, one INSERT each (reference)', unit: 'checks/s', samples: rate.reference },
          { name: 'this process CPU per check, batched', unit: 'µs', samples: ownCpu.guard },
          { name: 'this process CPU per check, one INSERT each', unit: 'µs', samples: ownCpu.reference },
          {
            name: 'PostgreSQL CPU per check, batched (this database\u2019s backends)',
            unit: 'µs',
            samples: databaseCpu.guard,
          },
          { name: 'PostgreSQL CPU per check, one INSERT each', unit: 'µs', samples: databaseCpu.reference },
        ],
        ratios: [{ name: 'CPU per check, batched / one INSERT each', value: total('guard') / total('reference') }],
        notes: [
          `CPU per check (this process + PostgreSQL medians): batched ${Math.round(total('guard'))} µs, one INSERT each ${Math.round(total('reference'))} µs.`,
        ],
      };
    } finally {
      await database.drop();
    }
  },
};
