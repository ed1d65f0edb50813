// sdk/cpp's command-line example, gatehouse-device-login, end to end: built with clang-19, it asks a listening
// Gatehouse (on real time, polling interval 1 s) for a device code and prints where to enter it; a person opens that
// link in Chromium, signs in with password and TOTP, checks the request (the tool named by its User-Agent) and
// approves; the tool's polls then get tokens, it validates the ID token, reads userinfo and prints who signed in.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startRealTimeIssuer } from '../helpers/device-flow.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';

const run = promisify(execFile);
const CPP = path.resolve(import.meta.dirname, '../../sdk/cpp');
// A build directory of its own: test/sdk/cpp-helper.test.ts runs `make all` at the same time, and its link of this
// tool into a shared directory rewrote the binary while a test here started it (EACCES).
const BUILD = 'build/device-login';
const CLI = path.join(CPP, BUILD, 'gatehouse-device-login');

/** Runs the CLI; resolves its first lines (the code) as soon as it prints them, and its whole run at exit. */
function startCli(args: string[]) {
  const child = spawn(CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const prompt = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/^Or open .*\n/m.test(stdout)) resolve(stdout);
    });
    child.on('exit', () => reject(new Error(`exited before printing the code: ${stdout} ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { prompt, exit };
}

describe('sdk/cpp gatehouse-device-login (RFC 8628) with approval in Chromium', () => {
  // Compiling the module and the tool takes a minute or more on a busy machine.
  before(
    () => run('make', ['-C', CPP, '-j2', `BUILD=${BUILD}`, `${BUILD}/gatehouse-device-login`], { maxBuffer: 1 << 24 }),
    {
      timeout: 600_000,
    },
  );

  test('prints a code, waits while the person signs in and approves on /device, then prints who signed in', async () => {
    const t = await startRealTimeIssuer(1);
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'native',
      name: 'Acme CLI',
      redirectUris: [],
      scopes: ['openid', 'profile', 'email', 'offline_access'],
      deviceAuthorizationGrant: true,
      firstParty: false,
    });
    const account = await makeAccount(t.sql, t.secrets, t.config, { email: 'dorothy@acme.test' });
    await t.sql`update identities set display_name = 'Dorothy Vaughan' where id = ${account.sub}`;

    const cli = startCli([t.issuer, client.id]);
    const printed = await cli.prompt;
    const code = printed.match(/enter the code ([A-Z]{4}-[A-Z]{4})$/m)?.[1] ?? '';
    assert.match(
      printed,
      new RegExp(`^To sign in, open ${t.issuer}/device and enter the code [A-Z]{4}-[A-Z]{4}$`, 'm'),
    );
    const complete = printed.match(/^Or open (\S+)$/m)?.[1] ?? '';
    assert.equal(complete, `${t.issuer}/device?user_code=${code}`);

    const { page, problems, screenshot } = await newPage();
    await signInThrough(t, page, `/device?user_code=${code}`, account);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Acme CLI asks to sign in to your account on this device:').waitFor();
    await page.getByText('gatehouse-device-login/1.0').waitFor();
    await screenshot('device-cli-review');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Done: Acme CLI is signed in on your device. You can go back to it now.').waitFor();

    const { code: status, stdout, stderr } = await cli.exit;
    assert.equal(status, 0, stderr);
    const values = Object.fromEntries(
      stdout
        .split('\n')
        .filter((line) => /^[a-z_]+=/.test(line))
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    assert.deepEqual(values, {
      sub: account.sub,
      name: 'Dorothy Vaughan',
      email: 'dorothy@acme.test',
      scope: 'openid profile email offline_access',
      refresh_token: 'issued',
    });
    assert.match(stdout, /^Signed in as Dorothy Vaughan$/m);
    assert.deepEqual(problems, []);
  });

  test('a denial ends the tool with the server’s access_denied', async () => {
    const t = await startRealTimeIssuer(1);
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'native',
      redirectUris: [],
      deviceAuthorizationGrant: true,
    });
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const cli = startCli([t.issuer, client.id, 'openid']);
    const code = (await cli.prompt).match(/enter the code ([A-Z]{4}-[A-Z]{4})$/m)?.[1] ?? '';
    const { page } = await newPage();
    await signInThrough(t, page, `/device?user_code=${code}`, account);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied: the device was not signed in.').waitFor();
    const { code: status, stderr } = await cli.exit;
    assert.equal(status, 1);
    assert.match(stderr, /^gatehouse error token_error: .* \(The person denied the request\)$/m);
    assert.match(stderr, /access_denied/);
  });
});
