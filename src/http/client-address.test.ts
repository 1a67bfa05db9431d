import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddressKey, createFailureWindow } from './client-address.js';

describe('client address keys', () => {
  it('counts IPv4 by address, IPv6 by /64, and an IPv4-mapped address as IPv4', () => {
    const cases: [string, string][] = [
      ['198.51.100.7', '198.51.100.7'],
      ['::ffff:198.51.100.7', '198.51.100.7'],
      ['::ffff:c633:6407', '198.51.100.7'],
      ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2:0:0:0:0/64'],
      ['2001:db8:1:2::ffff', '2001:db8:1:2:0:0:0:0/64'],
      ['2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2:0:0:0:0/64'],
      ['2001:db8:1:3::1', '2001:db8:1:3:0:0:0:0/64'],
      ['::1', '0:0:0:0:0:0:0:0/64'],
      ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:0/64'],
      ['not:an:address', 'not:an:address'],
    ];
    for (const [address, key] of cases) assert.equal(clientAddressKey(address), key, address);
  });
});

describe('failure window', () => {
  it('refuses at the limit until the oldest counted failure leaves the window', () => {
    const window = createFailureWindow({ limit: 3, windowMs: 1000, maxClients: 10 });
    window.record('a', 0);
    window.record('a', 100);
    assert.equal(window.waitMs('a', 200), 0);
    window.record('a', 200);
    assert.equal(window.waitMs('a', 200), 800);
    assert.equal(window.waitMs('a', 999), 1);
    assert.equal(window.waitMs('a', 1000), 0, 'the failure at 0 has left the window');
    window.record('a', 1000);
    assert.equal(window.waitMs('a', 1000), 100, 'now the failure at 100 is the oldest of three');
    assert.equal(window.waitMs('b', 1000), 0, 'each client counts alone');
  });

  it('forgets the least recently failing client first when full', () => {
    const window = createFailureWindow({ limit: 1, windowMs: 1000, maxClients: 2 });
    window.record('a', 0);
    window.record('b', 0);
    window.record('a', 10);
    window.record('c', 20);
    assert.equal(window.waitMs('b', 30), 0, 'b was forgotten');
    assert.ok(window.waitMs('a', 30) > 0);
    assert.ok(window.waitMs('c', 30) > 0);
  });
});
