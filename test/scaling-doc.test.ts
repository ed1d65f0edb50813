// docs/scaling.md shows the Patroni, HAProxy and Gatehouse settings that test/failover/patroni.test.ts runs with, for
// a deployment's hosts: this checks that each example is what the test's own functions produce for those hosts, so
// neither the document nor the tested configuration can change without the other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { balancerUnavailableLines } from './helpers/haproxy.ts';
import {
  CONNECT_TIMEOUT_SECONDS,
  haproxyDatabaseConfig,
  multiHostDatabaseUrl,
  patroniConfig,
} from './helpers/patroni-cluster.ts';

const doc = readFileSync(new URL('../docs/scaling.md', import.meta.url), 'utf8');

/** The fenced block right after `<!-- example: NAME -->`. */
function example(name: string): string {
  const match = new RegExp(`<!-- example: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\n`).exec(doc);
  assert.ok(match, `docs/scaling.md has no example ${name}`);
  return match[1] as string;
}

const nodes = [
  { name: 'pg1', host: '10.0.0.11' },
  { name: 'pg2', host: '10.0.0.12' },
];

test('the patroni.yml example is the failover test configuration for the example hosts', () => {
  assert.equal(
    example('patroni.yml'),
    patroniConfig({
      scope: 'gatehouse',
      name: 'pg1',
      host: '10.0.0.11',
      restPort: 8008,
      pgPort: 5432,
      etcd: ['10.0.0.21:2379', '10.0.0.22:2379', '10.0.0.23:2379'],
      dataDir: '/var/lib/postgresql/15/patroni',
      socketDir: '/var/run/postgresql',
      synchronousMode: true,
      network: '10.0.0.0/24',
      passwords: { superuser: 'CHANGE-ME-superuser', replication: 'CHANGE-ME-replication' },
    }),
  );
});

test('the haproxy.cfg example is the failover test database endpoint for the example hosts', () => {
  assert.equal(
    example('haproxy.cfg'),
    haproxyDatabaseConfig({
      bind: '0.0.0.0:5000',
      statsSocket: '/run/haproxy/patroni.sock',
      nodes: nodes.map((node) => ({ ...node, pgPort: 5432, restPort: 8008 })),
    }),
  );
});

test('the gatehouse.toml example has the multi-host URL and connect timeout the failover test uses', () => {
  const url = multiHostDatabaseUrl(
    nodes.map((node) => `${node.host}:5432`),
    'gatehouse',
    'gatehouse',
  );
  assert.equal(
    example('gatehouse.toml'),
    `[database]\nurl = "${url}"\nconnect_timeout_seconds = ${CONNECT_TIMEOUT_SECONDS}\n`,
  );
});

test('the balancer lines that answer 503 in the envelope are the ones the failover test balancer runs with', () => {
  assert.equal(example('haproxy-unavailable'), `${balancerUnavailableLines().join('\n')}\n`);
});
