// `npm test` (scripts/test.ts) on a machine without Debian's Chromium: a run that includes browser tests stops
// before starting anything, in one line saying what to install; a run without them goes ahead. The same for the C++
// helper's test without clang-19 and make.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MISSING = '/nonexistent/chromium';

function runTests(
  files: string[],
  overrides: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_TEST_CHROMIUM: MISSING, ...overrides };
  // Set for files this runner started: without removing it the inner run would report to this one, not to stdout.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['scripts/test.ts', ...files], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm test without Chromium', () => {
  test('a run with a browser test exits 1 before running anything, saying in one line what to install', async () => {
    const result = await runTests(['test/web/signin-page.test.ts', 'src/config/issuer-listener.test.ts']);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `npm test: 1 browser test file(s) need Debian's chromium at ${MISSING}: apt-get install chromium (or name only other test files: npm test -- FILE...)\n`,
    );
  });

  test('a run without browser tests does not need it and passes', async () => {
    const result = await runTests(['src/config/issuer-listener.test.ts']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\nℹ pass \d+\nℹ fail 0\n/);
  });
});

describe('npm test without the C++ toolchain', () => {
  test('a run with the C++ helper test exits 1 before running anything, naming what to install', async () => {
    const result = await runTests(['test/sdk/cpp-helper.test.ts'], { PATH: '/nonexistent' });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'npm test: test/sdk/cpp-helper.test.ts needs clang++-19 and make: apt-get install make clang-19 libssl-dev libcurl4-openssl-dev nlohmann-json3-dev (or name only other test files: npm test -- FILE...)\n',
    );
  });
});
