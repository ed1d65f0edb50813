// A configuration only the database can refuse (auth.organization_id naming no organization) is judged by each
// worker as it starts. With several workers, `gatehouse serve` must still exit 78, the status systemd does not
// restart on (packaging/gatehouse.service RestartPreventExitStatus), with the reason and no stack trace.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { writeNodeConfig } from './helpers/gatehouse-process.ts';

describe('gatehouse serve refusing its configuration', async () => {
  const database = await createTestDatabase();
  const serve = (workers: number) => {
    const dir = scratchDir();
    const configFile = writeNodeConfig({
      dir,
      secretsDir: path.join(dir, 'secrets'),
      workers,
      extra: '[gateway]\nenabled = true\n[auth]\nenabled = true\norganization_id = "no-such-org"',
    });
    return runCli(['serve', '--config', configFile], { env: { DATABASE_URL: database.url } });
  };

  for (const workers of [1, 2])
    test(`an unknown auth.organization_id exits 78 with its reason and no stack trace (server.workers = ${workers})`, async () => {
      const result = await serve(workers);
      assert.equal(result.code, 78, result.stderr);
      assert.match(result.stderr, /auth\.organization_id: organization "no-such-org" does not exist in the database/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      if (workers > 1)
        assert.match(
          result.stderr,
          /\ngatehouse serve: worker \d exited with 78 before it listened; its reason is above\n$/,
        );
    });
});
