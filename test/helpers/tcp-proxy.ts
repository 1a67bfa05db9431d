import net from 'node:net';

/** A TCP proxy on loopback that a test can take down and bring back on the same port. */
export interface TcpProxy {
  port: number;
  /** Stops accepting and cuts every connection through it (the target keeps running). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: URL): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const listening = net.createServer((inbound) => {
        const outbound = net.connect(Number(target.port || 6379), target.hostname);
        for (const socket of [inbound, outbound]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            inbound.destroy();
            outbound.destroy();
          });
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        port = (listening.address() as net.AddressInfo).port;
        server = listening;
        resolve();
      });
    });
  const pause = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
      for (const socket of sockets) socket.destroy();
    });
  await listen();
  return {
    get port() {
      return port;
    },
    pause,
    resume: listen,
    close: pause,
  };
}
