// sdk/browser: the built package, everything it exports and the parts of jose it uses, minified and gzipped, stays
// under 15 kB (the budget for a sign-in helper an app ships to every visitor).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bundle } from './bundle.ts';

describe('@gatehouse/browser bundle size', () => {
  test('an app importing every export ships under 15 kB min+gz, jose included', async () => {
    const code = await bundle(new URL('./browser-app/everything.ts', import.meta.url).pathname, true);
    const size = gzipSync(code, { level: 9 }).length;
    for (const name of ['login', 'handleCallback', 'userInfo', 'refresh', 'logout', 'StateMismatch'])
      assert.match(code, new RegExp(`\\b${name}\\b`), `${name} is exported`);
    assert.ok(size < 15 * 1024, `min+gz ${size} bytes`);
    // jose is inside, not left as an import for the page to fetch.
    assert.doesNotMatch(code, /from\s*["']jose["']/);
  });
});
