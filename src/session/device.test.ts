import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeDevice } from './device.ts';

describe('a session device in words', () => {
  test('names the browser (major version) and the system', () => {
    assert.equal(
      describeDevice('Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'),
      'Firefox 128 on Ubuntu',
    );
    assert.equal(
      describeDevice(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      ),
      'Chrome 131 on Windows 10',
    );
    assert.equal(
      describeDevice(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
      'Mobile Safari 17 on Apple iPhone, iOS 17.5',
    );
  });

  test('is null without a User-Agent, and says what it can for an unknown one', () => {
    assert.equal(describeDevice(null), null);
    assert.equal(describeDevice('curl/8.5.0'), null);
  });
});
