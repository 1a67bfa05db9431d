import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { connectionCaps, type LingerBounds, lingeringClose, openFileLimit } from './connections.js';

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

describe('lingering close', () => {
  const MIB = 1024 * 1024;
  const servers: net.Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });

  /**
   * A TCP server that refuses its connection at once (`refused`, then a lingering close within
   * `bounds`); resolves with its port and when the server's side of the connection closed.
   */
  async function refusing(bounds: LingerBounds) {
    let serverClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (serverClosed = resolve));
    const server = net.createServer({ allowHalfOpen: true }, (socket) => {
      socket.once('close', () => serverClosed());
      lingeringClose(socket, bounds, 'refused');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as net.AddressInfo).port, closed };
  }

  /** A client that goes on sending after the server closes its side, as one busy sending does. */
  function client(port: number): Promise<net.Socket> {
    return new Promise((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(socket));
    });
  }

  /** Resolves true once `closed` settles, false when `ms` pass first. */
  function within(closed: Promise<void>, ms: number): Promise<boolean> {
    return Promise.race([
      closed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
    ]);
  }

  it('lets a client that writes its whole body before reading read the answer, and closes when it does', async () => {
    const { port, closed } = await refusing({ timeoutMs: 600_000, maxBytes: 64 * MIB });
    const socket = await client(port);
    socket.pause();
    const answer = await new Promise<string | undefined>((resolve) => {
      let text = '';
      let failed = false;
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', () => (failed = true));
      socket.once('end', () => socket.end());
      socket.once('close', () => resolve(failed ? undefined : text));
      // More than the kernel buffers between the two: written only as the server reads it.
      socket.write(Buffer.alloc(16 * MIB, 'a'), () => socket.resume());
    });
    assert.equal(answer, 'refused');
    assert.ok(await within(closed, 10_000), 'the server closed once the client did');
  });

  it('cuts off a client sending past the byte bound', async () => {
    const { port, closed } = await refusing({ timeoutMs: 600_000, maxBytes: MIB });
    const socket = await client(port);
    socket.on('error', () => undefined);
    socket.write(Buffer.alloc(8 * MIB, 'a'));
    assert.ok(await within(closed, 10_000), 'cut off past 1 MiB, long before the time bound');
    socket.destroy();
  });

  it('cuts off a client still sending at the time bound', async () => {
    const { port, closed } = await refusing({ timeoutMs: 200, maxBytes: 64 * MIB });
    const socket = await client(port);
    socket.on('error', () => undefined);
    const trickle = setInterval(() => socket.writable && socket.write('a'), 50);
    try {
      assert.ok(await within(closed, 10_000), 'cut off at 200 ms though still sending');
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});
