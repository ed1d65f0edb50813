// DPoP (RFC 9449) against bearer tokens in the same run: client credentials with a fresh proof per request (its
// signature check, jti replay insert into PostgreSQL and the bound token) versus without, and introspection of a
// DPoP-bound token versus a bearer one (the cached fast path must not get slower for bound tokens). Concurrency 32.
//
// Proofs are Ed25519, signed with node:crypto before each round starts (ProofSupply below), not inside it: a real
// client signs on its own machine, while here the load generator shares the server's two CPUs, and signing inside the
// timed window (about 100 µs of load-generator CPU per request, measured) charged the server's DPoP figure with work
// it never does. What the server does with a proof (verify, replay check, bind) is all inside the window.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { PROOF_MAX_AGE_SECONDS } from '../../src/oauth/dpop-proof.ts';
import { FORM, form, startOAuthBench } from '../helpers/oauth.ts';
import { backendCpuSecondsSince, backendCpuSnapshot, ISSUER } from '../helpers/server.ts';
import {
  type BenchContext,
  type HttpLoad,
  httpRequestsPerSecond,
  median,
  type Scenario,
  sampled,
  warmUpHttp,
  withServerCpu,
} from '../lib.ts';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const jwk = publicKey.export({ format: 'jwk' });
const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'EdDSA', jwk })).toString('base64url');

/** A DPoP proof for POST `htu`, new jti each time. */
function proof(htu: string): string {
  const claims = { htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID() };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

/**
 * DPoP proofs signed ahead of a round: each with `iat` at signing time and its own `jti`, so each is accepted once for
 * PROOF_MAX_AGE_SECONDS, longer than a round lasts. A round that outruns its supply signs the rest on the spot and
 * says so (`signedInRound`), so a short supply shows in the report instead of silently favouring DPoP.
 */
class ProofSupply {
  private ready: string[] = [];
  signedInRound = 0;
  /** Load-generator CPU spent signing ahead of rounds, and how many proofs it signed. */
  signingMicros = 0;
  signedAhead = 0;

  readonly #htu: string;

  constructor(htu: string) {
    this.#htu = htu;
  }

  /** Replaces the supply with `count` proofs signed now (unused ones from the last round are dropped). */
  fill(count: number): void {
    const cpu = process.cpuUsage();
    this.ready = Array.from({ length: count }, () => proof(this.#htu));
    const { user, system } = process.cpuUsage(cpu);
    this.signingMicros += user + system;
    this.signedAhead += count;
  }

  next(): string {
    const ready = this.ready.pop();
    if (ready !== undefined) return ready;
    this.signedInRound += 1;
    return proof(this.#htu);
  }
}

export const scenario: Scenario = {
  name: 'oauth-dpop',
  description:
    "DPoP vs bearer in the same run, concurrency 32, keep-alive: POST /oauth/token grant_type=client_credentials with and without a DPoP proof (Ed25519, fresh jti per request), and POST /oauth/introspect of a DPoP-bound and of a bearer access token. The proofs of a round are signed before the round starts (fresh iat, unique jti each): a real client signs on its own machine, and here signing would take the two CPUs the server runs on, so the rates compare the server's work only; the signing cost is reported apart.",
  async run(context: BenchContext) {
    // Every proof of a round must still be inside the server's iat window when it is sent.
    if (context.roundMs > (PROOF_MAX_AGE_SECONDS - 10) * 1000)
      throw new Error(
        `oauth-dpop: rounds over ${PROOF_MAX_AGE_SECONDS - 10} s would send proofs the server refuses as stale`,
      );
    const bench = await startOAuthBench();
    try {
      // The proof names the endpoint as the issuer publishes it (RFC 9449 §4.3), not the loopback address dialled.
      const htu = `${ISSUER}/oauth/token`;
      const tokenBody = form({
        grant_type: 'client_credentials',
        client_id: bench.service.clientId,
        client_secret: bench.service.secret,
        scope: 'read',
        resource: bench.service.audience,
      });
      const bearerToken: HttpLoad = {
        method: 'POST',
        path: '/oauth/token',
        headers: FORM,
        body: tokenBody,
        expectStatus: 200,
      };
      const proofs = new ProofSupply(htu);
      const dpopToken: HttpLoad = { ...bearerToken, headers: () => ({ ...FORM, dpop: proofs.next() }) };
      const issue = async (headers: Record<string, string>) => {
        const response = await fetch(`${bench.server.url}/oauth/token`, { method: 'POST', headers, body: tokenBody });
        const json = (await response.json()) as { access_token?: string; token_type?: string };
        if (!json.access_token) throw new Error(`no token: ${JSON.stringify(json)}`);
        return json as { access_token: string; token_type: string };
      };
      const bearer = await issue(FORM);
      const bound = await issue({ ...FORM, dpop: proof(htu) });
      if (bound.token_type !== 'DPoP') throw new Error('the DPoP token request did not bind the token');
      const introspection = (token: string): HttpLoad => ({
        method: 'POST',
        path: '/oauth/introspect',
        headers: FORM,
        body: form({ client_id: bench.service.clientId, client_secret: bench.service.secret, token }),
        expectStatus: 200,
      });
      const loads = {
        bearerToken,
        dpopToken,
        bearerIntrospect: introspection(bearer.access_token),
        dpopIntrospect: introspection(bound.access_token),
      };
      // The warm-up signs its proofs as it goes (it is not measured); how many it used sizes the first round's supply.
      for (const load of Object.values(loads)) await warmUpHttp(bench.server.url, load, 32, context);
      let fastest = (proofs.signedInRound / context.warmUpMs) * 1000;
      proofs.signedInRound = 0;
      type Load = keyof typeof loads;
      const series = () =>
        ({ bearerToken: [], dpopToken: [], bearerIntrospect: [], dpopIntrospect: [] }) as Record<Load, number[]>;
      // Wall-clock rates swing with whatever else the shared machine runs; CPU per request does not, so the cost of a
      // proof is read from these: the server's (all its workers), its database's backends' (the replay store) and this process's (signing proofs).
      const samples = series();
      const serverCpu = series();
      const databaseCpu = series();
      const loadCpu = series();
      let errors = 0;
      await sampled(context.rounds, async () => {
        for (const [name, load] of Object.entries(loads) as [Load, HttpLoad][]) {
          // Half as many again as the fastest token rate seen so far (bearer's included) would use in a round.
          if (name === 'dpopToken') proofs.fill(Math.ceil((fastest * 1.5 * context.roundMs) / 1000) + 1000);
          const database = await backendCpuSnapshot(bench.server.sql);
          const own = process.cpuUsage();
          const start = performance.now();
          const r = await withServerCpu(bench.server, () =>
            httpRequestsPerSecond(bench.server.url, load, 32, context.roundMs),
          );
          const requests = r.perSecond * ((performance.now() - start) / 1000);
          const { user, system } = process.cpuUsage(own);
          samples[name].push(r.perSecond);
          if (name === 'bearerToken' || name === 'dpopToken') fastest = Math.max(fastest, r.perSecond);
          serverCpu[name].push(r.cpuMicrosPerRequest);
          databaseCpu[name].push(((await backendCpuSecondsSince(bench.server.sql, database)) * 1e6) / requests);
          loadCpu[name].push((user + system) / requests);
          errors += r.errors;
        }
        return 0;
      });
      const total = (name: Load) => median(serverCpu[name]) + median(databaseCpu[name]) + median(loadCpu[name]);
      return {
        metrics: [
          { name: 'client_credentials, bearer', unit: 'req/s', samples: samples.bearerToken },
          { name: 'client_credentials, DPoP proof', unit: 'req/s', samples: samples.dpopToken },
          { name: 'introspection of a bearer token', unit: 'req/s', samples: samples.bearerIntrospect },
          { name: 'introspection of a DPoP-bound token', unit: 'req/s', samples: samples.dpopIntrospect },
          { name: 'server CPU per client_credentials, bearer', unit: 'µs', samples: serverCpu.bearerToken },
          { name: 'server CPU per client_credentials, DPoP', unit: 'µs', samples: serverCpu.dpopToken },
          {
            name: "PostgreSQL CPU per client_credentials, bearer (this database's backends)",
            unit: 'µs',
            samples: databaseCpu.bearerToken,
          },
          { name: 'PostgreSQL CPU per client_credentials, DPoP', unit: 'µs', samples: databaseCpu.dpopToken },
          { name: 'load generator CPU per client_credentials, bearer', unit: 'µs', samples: loadCpu.bearerToken },
          {
            name: 'load generator CPU per client_credentials, DPoP (proof signed before the round)',
            unit: 'µs',
            samples: loadCpu.dpopToken,
          },
          { name: 'server CPU per introspection, bearer', unit: 'µs', samples: serverCpu.bearerIntrospect },
          { name: 'server CPU per introspection, DPoP-bound', unit: 'µs', samples: serverCpu.dpopIntrospect },
        ],
        ratios: [
          {
            name: 'client_credentials DPoP / bearer',
            value: median(samples.dpopToken) / median(samples.bearerToken),
            target: { atLeast: 0.8 },
          },
          {
            name: 'introspection DPoP-bound / bearer',
            value: median(samples.dpopIntrospect) / median(samples.bearerIntrospect),
            target: { atLeast: 0.8 },
          },
        ],
        notes: [
          `Unexpected responses during the rounds: ${errors}.`,
          `DPoP proofs were signed before each round (${proofs.signedAhead} in all, ${(proofs.signingMicros / Math.max(proofs.signedAhead, 1)).toFixed(0)} µs of load-generator CPU each, not counted below); proofs a round ran short of and signed inside it: ${proofs.signedInRound}.`,
          `CPU per client_credentials request on this machine (server + PostgreSQL + load generator medians): bearer ${Math.round(total('bearerToken'))} µs, DPoP ${Math.round(total('dpopToken'))} µs, a ratio of ${(total('bearerToken') / total('dpopToken')).toFixed(2)}: the throughput ratio the two CPUs would allow if nothing else ran.`,
        ],
      };
    } finally {
      await bench.server.stop();
    }
  },
};
