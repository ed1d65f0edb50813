import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesRedirectUri, redirectUriProblem } from './redirect-uri.ts';
import { normalizeEmptyPath } from './uri-normalization.ts';

describe('redirect URI matching', () => {
  it('matches only an exact registered URI', () => {
    const registered = ['https://app.test/cb'];
    assert.equal(matchesRedirectUri(registered, 'https://app.test/cb', false), true);
    assert.equal(matchesRedirectUri(registered, 'https://app.test/cb/', false), false);
    assert.equal(matchesRedirectUri(registered, 'https://app.test/cb?x=1', false), false);
    assert.equal(matchesRedirectUri(registered, 'https://APP.test/cb', false), false);
  });

  it('takes an empty path as / and nothing else (RFC 3986 §6.2.3)', () => {
    const registered = ['https://app.test/', 'https://app.test/cb'];
    assert.equal(matchesRedirectUri(registered, 'https://app.test', false), true);
    for (const uri of ['https://app.test?x', 'https://app.test#f', 'https://app.test:443', 'HTTPS://app.test'])
      assert.equal(matchesRedirectUri(registered, uri, false), false, uri);
    assert.equal(matchesRedirectUri(['http://127.0.0.1/'], 'http://127.0.0.1:5173', true), true);
    assert.equal(normalizeEmptyPath('com.example.app://cb'), 'com.example.app://cb');
    assert.equal(normalizeEmptyPath('https://app.test?x=1'), 'https://app.test/?x=1');
  });

  it('lets a native loopback URI vary only by port (RFC 8252 §7.3)', () => {
    const registered = ['http://127.0.0.1/cb', 'http://[::1]:1/cb'];
    assert.equal(matchesRedirectUri(registered, 'http://127.0.0.1:53111/cb', true), true);
    assert.equal(matchesRedirectUri(registered, 'http://[::1]:4000/cb', true), true);
    assert.equal(matchesRedirectUri(registered, 'http://127.0.0.1:53111/other', true), false);
    assert.equal(matchesRedirectUri(registered, 'http://127.0.0.1:53111/cb', false), false);
    assert.equal(matchesRedirectUri(registered, 'http://localhost:53111/cb', true), false);
  });
});

describe('redirect URI registration', () => {
  const web = { native: false, development: false };
  it('names the problem of each refused URI', () => {
    assert.equal(redirectUriProblem('https://app.test/cb', web), null);
    assert.equal(redirectUriProblem('/cb', web), 'must be an absolute URI');
    assert.equal(redirectUriProblem('https://app.test/cb#x', web), 'must not contain a fragment');
    for (const uri of ['https://u:p@app.test/cb', 'https://u@app.test/cb', 'https://:p@app.test/cb'])
      assert.equal(redirectUriProblem(uri, web), 'must not contain user credentials', uri);
    assert.equal(
      redirectUriProblem('com.example.app://u:p@cb/x', { native: true, development: false }),
      'must not contain user credentials',
    );
    assert.match(redirectUriProblem('http://app.test/cb', web) ?? '', /^must use https/);
    assert.match(redirectUriProblem('http://localhost:3000/cb', web) ?? '', /^must use https/);
    assert.equal(redirectUriProblem('http://localhost:3000/cb', { native: false, development: true }), null);
    assert.equal(redirectUriProblem('http://127.0.0.1/cb', { native: true, development: false }), null);
    assert.equal(redirectUriProblem('com.example.app:/cb', { native: true, development: false }), null);
    const native = { native: true, development: false };
    assert.match(redirectUriProblem('javascript:alert(1)', native) ?? '', /reverse-domain form/);
    assert.match(redirectUriProblem('myapp:/cb', native) ?? '', /reverse-domain form/);
    assert.equal(redirectUriProblem('com.example.app:/cb', web), 'must use https');
  });
});
