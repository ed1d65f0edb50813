import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { DEVICE_COOKIE_SECONDS, DEVICE_ENTRIES_KEPT, knownDeviceId, rememberDevice } from './known-device.ts';

const key = randomBytes(32);
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

describe('gatehouse_device cookie entries', () => {
  it('keeps the five most recent accounts, newest first, and forgets the oldest', () => {
    let cookie: string | null = null;
    for (let n = 0; n <= DEVICE_ENTRIES_KEPT; n += 1)
      cookie = rememberDevice(key, cookie, `person${n}@acme.test`, at(n));
    assert.equal(cookie?.split('~').length, DEVICE_ENTRIES_KEPT);
    assert.equal(knownDeviceId(key, cookie, 'person0@acme.test', at(10)), null, 'the oldest dropped out');
    for (let n = 1; n <= DEVICE_ENTRIES_KEPT; n += 1)
      assert.ok(knownDeviceId(key, cookie, `person${n}@acme.test`, at(10)), `person${n}`);
    const newest = cookie?.split('~')[0] ?? '';
    assert.ok(knownDeviceId(key, newest, `person${DEVICE_ENTRIES_KEPT}@acme.test`, at(10)), 'newest first');
  });

  it('renews an entry with the same id and a later expiry, and drops expired entries on renewal', () => {
    const first = rememberDevice(key, null, 'a@acme.test', at(0));
    const withB = rememberDevice(key, first, 'b@acme.test', at(100));
    const id = knownDeviceId(key, withB, 'a@acme.test', at(200));
    const renewed = rememberDevice(key, withB, 'a@acme.test', at(150));
    assert.equal(renewed.split('~').length, 2);
    // Past a's first expiry: only the renewal keeps it known, with the same id.
    assert.equal(knownDeviceId(key, renewed, 'a@acme.test', at(DEVICE_COOKIE_SECONDS + 120)), id);
    const later = rememberDevice(key, renewed, 'a@acme.test', at(DEVICE_COOKIE_SECONDS + 120));
    assert.equal(later.split('~').length, 1, 'b expired and is gone');
    assert.equal(knownDeviceId(key, later, 'a@acme.test', at(DEVICE_COOKIE_SECONDS + 130)), id);
  });

  it('does not verify under another key, for another subject, or past its expiry', () => {
    const cookie = rememberDevice(key, null, 'a@acme.test', at(0));
    assert.equal(knownDeviceId(randomBytes(32), cookie, 'a@acme.test', at(1)), null);
    assert.equal(knownDeviceId(key, cookie, 'b@acme.test', at(1)), null);
    assert.equal(knownDeviceId(key, cookie, 'a@acme.test', at(DEVICE_COOKIE_SECONDS)), null);
    assert.equal(knownDeviceId(key, `${cookie}~${'x'.repeat(400)}`, 'a@acme.test', at(1)), null, 'oversized');
  });

  it('keeps sign-in and second-step entries apart: one never passes for the other', () => {
    const signIn = rememberDevice(key, null, 'usr_a', at(0));
    assert.equal(knownDeviceId(key, signIn, 'usr_a', at(1), 'second-step'), null);
    const both = rememberDevice(key, signIn, 'usr_a', at(2), 'second-step');
    assert.equal(both.split('~').length, 2);
    const stepId = knownDeviceId(key, both, 'usr_a', at(3), 'second-step');
    assert.ok(stepId);
    assert.notEqual(stepId, knownDeviceId(key, both, 'usr_a', at(3)));
    assert.equal(knownDeviceId(key, both, 'usr_b', at(3), 'second-step'), null);
  });
});
