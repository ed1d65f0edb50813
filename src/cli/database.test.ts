import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli, writeCliConfig } from '../../test/helpers/cli.ts';

describe('--database-url on every command that opens the database', () => {
  const commands = [['migrate'], ['owner', 'enroll-link'], ['audit', 'verify'], ['keys', 'list']];
  for (const command of commands)
    for (const url of ['mysql://127.0.0.1/gatehouse', 'postgres//127.0.0.1/gatehouse'])
      test(`gatehouse ${command.join(' ')} refuses ${url} with exit 64 before connecting`, async () => {
        const result = await runCli([...command, '--config', writeCliConfig(), '--database-url', url]);
        assert.equal(result.code, 64);
        assert.equal(
          result.stderr,
          `gatehouse ${command[0]}: --database-url must start with postgres:// or postgresql://\n`,
        );
        assert.equal(result.stdout, '');
      });
});
