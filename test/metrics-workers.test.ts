// GET /metrics with server.workers = 2: each scrape reaches one worker, and every scrape must still report the node's
// totals, so a counter never goes down between scrapes (Prometheus would read that as a reset).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadSecrets } from '../src/crypto/secret-files.ts';
import { scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { startGatehouse, writeNodeConfig } from './helpers/gatehouse-process.ts';

const database = await createTestDatabase();
const dir = scratchDir();
const configFile = writeNodeConfig({ dir, secretsDir: path.join(dir, 'secrets'), workers: 2 });
const token = loadSecrets(path.join(dir, 'secrets')).metrics.toString('base64url');

/** The value of one sample line, e.g. a histogram's _count for one label set; 0 before its first observation. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const READY = 'gatehouse_http_request_duration_seconds_count{method="GET",route="/health/ready",status_class="2xx"}';
const SCRAPES = 'gatehouse_http_request_duration_seconds_count{method="GET",route="/metrics",status_class="2xx"}';

describe('GET /metrics with server.workers = 2', () => {
  test('every scrape reports the node totals: counters rise by exactly the requests made between scrapes', async () => {
    const node = await startGatehouse({ configFile, databaseUrl: database.url });
    after(() => node.stop());
    await node.waitForLog((r) => r.msg === 'listening' && r.workers === 2);
    // Each request on a connection of its own, so the primary hands them to the workers in turn.
    const get = (pathName: string, headers: Record<string, string> = {}) =>
      fetch(`${node.url}${pathName}`, { headers: { connection: 'close', ...headers } });
    const scrape = async () => {
      const response = await get('/metrics', { authorization: `Bearer ${token}` });
      assert.equal(response.status, 200);
      return response.text();
    };

    const baseline = sample(await scrape(), READY);
    // One, then two requests between scrapes: with the workers taking connections in turn, scrapes land on both.
    const between = [1, 2, 1, 2, 1, 2];
    const seen: Array<{ ready: number; scrapes: number }> = [];
    for (const requests of between) {
      for (let i = 0; i < requests; i += 1) assert.equal((await get('/health/ready')).status, 200);
      const text = await scrape();
      seen.push({ ready: sample(text, READY) - baseline, scrapes: sample(text, SCRAPES) });
    }
    // A scrape is counted once it is answered: the k-th scrape after the baseline sees k earlier ones.
    assert.deepEqual(seen, [
      { ready: 1, scrapes: 1 },
      { ready: 3, scrapes: 2 },
      { ready: 4, scrapes: 3 },
      { ready: 6, scrapes: 4 },
      { ready: 7, scrapes: 5 },
      { ready: 9, scrapes: 6 },
    ]);
    const scrapedBy = new Set(node.logs.filter((r) => r.path === '/metrics').map((r) => r.pid));
    assert.equal(scrapedBy.size, 2, 'both workers answered scrapes');
    // A gauge read from the shared database is the node's value, not one per worker added up.
    assert.equal(sample(await scrape(), 'gatehouse_outbox_messages{state="pending"}'), 0);
  });
});
