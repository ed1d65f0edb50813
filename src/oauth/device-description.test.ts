import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeDeviceOf } from './device-description.ts';

describe('the kind of device a device authorization request came from', () => {
  test('a smart TV, a phone, a desktop browser', () => {
    assert.deepEqual(
      describeDeviceOf(
        'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36',
      ).kind,
      'smarttv',
    );
    const phone = describeDeviceOf(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    );
    assert.equal(phone.kind, 'mobile');
    assert.match(phone.name ?? '', /^Mobile Safari 17 on Apple iPhone, iOS 17\.4$/);
    assert.deepEqual(
      describeDeviceOf(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      ),
      { kind: 'computer', name: 'Chrome 131 on Linux' },
    );
  });

  test('a command-line tool is named by its product token; nothing known is unknown', () => {
    assert.deepEqual(describeDeviceOf('gatehouse-device-cli/1.0 libcurl/8.14'), {
      kind: 'unknown',
      name: 'gatehouse-device-cli/1.0',
    });
    assert.deepEqual(describeDeviceOf(null), { kind: 'unknown', name: null });
    assert.deepEqual(describeDeviceOf('<script>'), { kind: 'unknown', name: null });
  });
});
