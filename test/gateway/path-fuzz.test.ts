// Random request targets against the gateway with the echo upstream behind it: each is either refused before the
// upstream, or the upstream receives the path the policy judged, and no way a server may read that path (decoded
// once or twice, `\` as `/`, `;params` dropped, trailing dots trimmed, Unicode folded, letter case ignored) lands
// under another policy than the one that let it through. Seeded, so a failure names a target that replays.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeTarget } from '../../src/gateway/request-path.ts';
import { randomTarget, seededRandom, upstreamReadings } from './path-readings.ts';
import { rawGet } from './raw-http.ts';
import { startGatewaySuite } from './suite.ts';

/** Which part of the suite's policy layout a decoded path falls in, letter case ignored. */
function region(path: string): string {
  const lower = path.toLowerCase();
  const under = (prefix: string) => lower === prefix || lower.startsWith(`${prefix}/`);
  if (under('/app/p/api/admin')) return 'admin policy';
  if (under('/app/p/api')) return 'api policy';
  if (under('/app/p')) return 'other protected';
  if (under('/app')) return 'unprotected';
  return 'outside the gateway';
}

describe('gateway: random request targets', async () => {
  const { t, upstream, serviceToken } = await startGatewaySuite();
  const port = Number(new URL(t.url).port);
  const bearer = `Authorization: Bearer ${await serviceToken()}`;

  test('each is refused before the upstream, or forwarded as judged and read alike by every upstream', async () => {
    const random = seededRandom(0x5eed);
    const outcomes = new Map<number, number>();
    for (let i = 0; i < 400; i += 1) {
      const target = randomTarget(random);
      const before = upstream.received.length;
      const r = await rawGet(port, target, bearer);
      outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
      if (r.status !== 200) {
        assert.ok([400, 403].includes(r.status), `${target}: ${r.status} ${r.body}`);
        assert.equal(upstream.received.length, before, `${target} was refused but reached the upstream`);
        const envelope = JSON.parse(r.body) as Record<string, unknown>;
        assert.deepEqual(Object.keys(envelope), ['error', 'error_description', 'request_id'], target);
        continue;
      }
      const received = upstream.received.at(-1)?.url ?? '';
      const judged = judgeTarget(target);
      assert.equal(received, `${judged.path}${judged.query}`, `${target}: forwarded another path than judged`);
      // The service token may use the api policy and unprotected paths, nothing else; so may every reading.
      for (const reading of upstreamReadings(judged.path))
        assert.ok(
          ['api policy', 'unprotected'].includes(region(reading)) && region(reading) === region(judged.decoded),
          `${target} forwarded as ${received} can be read as ${reading} (${region(reading)})`,
        );
    }
    // The generator reaches every outcome, so the checks above ran on each.
    for (const status of [200, 400, 403]) assert.ok((outcomes.get(status) ?? 0) > 20, JSON.stringify([...outcomes]));
  });
});
