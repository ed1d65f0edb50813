// --json on the commands that report data: one JSON document on stdout, the same facts as the lines.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runCli, writeCliConfig } from '../../test/helpers/cli.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { VERSION } from '../version.ts';

describe('--json', () => {
  test('info --json: version, issuer, organization and deferred items, no secret', async () => {
    const file = writeCliConfig();
    appendFileSync(file, '[providers.github]\nenabled = true\nclient_id = "dummy"\n');
    const result = await runCli(['info', '--config', file, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const info = JSON.parse(result.stdout);
    assert.equal(info.version, VERSION);
    assert.equal(info.config, file);
    assert.equal(info.issuer, 'http://localhost:8080');
    assert.deepEqual(info.organization, { id: 'acme', name: 'Acme' });
    assert.equal(info.self_service, false);
    assert.deepEqual(info.deferred, [{ key: 'providers.github', reason: 'client_id is a placeholder' }]);
  });

  test('keys list, audit verify and doctor --json read the database', async () => {
    const { url } = await createTestDatabase();
    const file = writeCliConfig();
    appendFileSync(file, `[database]\nurl = "${url}"\n`);
    assert.equal((await runCli(['keys', 'rotate', '--config', file])).code, 0);

    const keys = await runCli(['keys', 'list', '--config', file, '--json']);
    assert.equal(keys.code, 0, keys.stderr);
    const list = JSON.parse(keys.stdout);
    assert.equal(list.length, 2);
    const retired = list.find((k: { state: string }) => k.state === 'retired');
    assert.deepEqual(list.map((k: { state: string }) => k.state).sort(), ['retired', 'signing']);
    assert.match(retired.retired_at, /^\d{4}-\d\d-\d\dT/);
    assert.match(keys.stdout.split('\n')[0] ?? '', /^\[/);

    const audit = await runCli(['audit', 'verify', '--config', file, '--json']);
    assert.equal(audit.code, 0, audit.stderr);
    assert.deepEqual(JSON.parse(audit.stdout).breaks, []);

    const doctor = await runCli(['doctor', '--config', file, '--json']);
    const report = JSON.parse(doctor.stdout);
    assert.equal(doctor.code, report.ok ? 0 : 1);
    const database = report.checks.find((c: { name: string }) => c.name === 'database');
    assert.deepEqual({ status: database.status }, { status: 'ok' });
    assert.ok(
      report.checks.every((c: { status: string; name: string; detail: string }) => c.status && c.name && c.detail),
    );
  });
});
