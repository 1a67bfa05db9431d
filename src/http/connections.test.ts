import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionCaps, openFileLimit } from './connections.js';

describe('connection caps', () => {
  it('reads the soft open-file limit from /proc/self/limits', () => {
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             63704                63704                processes ',
      'Max open files            1024                 524288               files     ',
      'Max locked memory         8388608              8388608              bytes     ',
    ].join('\n');
    assert.equal(openFileLimit(limits), 1024);
    assert.equal(openFileLimit('Max processes 10 10 processes'), undefined);
  });

  it('serves MAX_CONNECTIONS and holds a tenth more (at least 10) to refuse', () => {
    assert.deepEqual(connectionCaps(1_000, undefined), { served: 1_000, held: 1_100 });
    assert.deepEqual(connectionCaps(1_000, 1_048_576), { served: 1_000, held: 1_100 });
    assert.deepEqual(connectionCaps(4, 1_048_576), { served: 4, held: 14 });
  });

  it('keeps both under the open-file limit, less the descriptors kept for the rest', () => {
    // 1024 files: 128 kept, 896 for connections, of which 814 served.
    assert.deepEqual(connectionCaps(1_000, 1_024), { served: 814, held: 896 });
    // 128 files: half kept, 64 for connections.
    assert.deepEqual(connectionCaps(1_000, 128), { served: 58, held: 64 });
    // Never none.
    assert.deepEqual(connectionCaps(1_000, 2), { served: 1, held: 1 });
  });
});
