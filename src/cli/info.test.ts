import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runCli, writeCliConfig } from '../../test/helpers/cli.ts';

describe('gatehouse info', () => {
  test('lists every deferred setting with its reason, and no secret', async () => {
    const file = writeCliConfig();
    appendFileSync(
      file,
      [
        '[delivery]',
        'kind = "smtp"',
        'from = "placeholder"',
        '[delivery.smtp]',
        'host = "smtp.acme.dev"',
        'username = "mailer"',
        'password_file = "smtp-password"',
        '[providers.github]',
        'enabled = true',
        'client_id = "dummy"',
        '',
      ].join('\n'),
    );
    const result = await runCli(['info', '--config', file]);
    assert.equal(result.code, 0, result.stderr);
    const deferred = result.stdout.split('\n').filter((line) => line.startsWith('deferred:'));
    assert.deepEqual(deferred, [
      'deferred:     delivery: delivery.from is a placeholder',
      'deferred:     providers.github: client_id is a placeholder',
    ]);
    assert.doesNotMatch(result.stdout, /github-secret-7/);
  });

  test('says the development mailbox keeps messages instead of sending them, and whether self-service is on', async () => {
    const file = writeCliConfig();
    appendFileSync(file, '[self_service]\nenabled = true\n[delivery]\nkind = "dev_mailbox"\n');
    const result = await runCli(['info', '--config', file]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(
      lines.includes(
        'delivery:     development mailbox: messages are kept, not sent; read them on the console Mailbox page and the terminal',
      ),
      result.stdout,
    );
    assert.ok(lines.includes('self-service: on'), result.stdout);
  });
});
