// packaging/install.sh with an https:// release location: the same release directory served over TLS by this
// process (a self-signed certificate curl is told to trust through CURL_CA_BUNDLE).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeCertificate } from '../delivery/smtp-server.ts';
import { hostArch, makeHost, makeRelease, runInstallerAsync } from './installer-harness.ts';

// Made here, not with scratchDir() in the hook: a hook's scratch directories are removed when the hook ends.
const scratch = mkdtempSync(path.join(tmpdir(), 'gatehouse-https-'));
const release = path.join(scratch, 'release');
let url = '';
let caFile = '';
const server = createServer();
after(() => {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
});

before(async () => {
  makeRelease(release);
  const certificate = await makeCertificate(scratch);
  caFile = certificate.caFile;
  server.setSecureContext({ cert: certificate.cert, key: certificate.key });
  server.on('request', (request, response) => {
    // The release directory under /releases/, as a static web server would serve it; anything else is a 404.
    const relative = path.normalize(decodeURIComponent(request.url ?? '/')).replace(/^\/releases\//, '');
    const file = path.join(release, relative);
    try {
      if (relative.startsWith('/') || !file.startsWith(`${release}/`)) throw new Error('outside');
      response.end(readFileSync(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `https://localhost:${typeof address === 'object' && address ? address.port : 0}/releases`;
});

describe('packaging/install.sh --from https://', () => {
  test('downloads, verifies and installs the channel latest', async () => {
    const host = makeHost();
    const result = await runInstallerAsync(host, ['--from', url, '--no-setup'], { CURL_CA_BUNDLE: caFile });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`Verified gatehouse-1\\.2\\.0-linux-${hostArch()}\\.tar\\.gz`));
    assert.equal(readlinkSync(path.join(host.root, 'opt/gatehouse/current')), '1.2.0');
  });

  test('refuses a server whose certificate it cannot verify, saying why', async () => {
    const result = await runInstallerAsync(makeHost(), ['--from', url, '--no-setup'], { CURL_CA_BUNDLE: '' });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^install\.sh: cannot download https:\/\/localhost:\d+\/releases\/stable\/LATEST: curl: \(60\) /,
    );
  });

  test('refuses a version the server does not have', async () => {
    const result = await runInstallerAsync(makeHost(), ['--from', url, '--version', '2.0.0'], {
      CURL_CA_BUNDLE: caFile,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no release 2\.0\.0 in the stable channel at https:\/\/localhost:\d+\/releases/);
  });
});
