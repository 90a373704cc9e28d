/**
 * A loopback TCP proxy between the browser and the server, so a test can really drop the page's
 * connections (the live stream included) and refuse new ones for a while, as a flaky network or a
 * restarting proxy would. Playwright's offline mode leaves open connections alone, so it cannot.
 */
import net from 'node:net';

export interface TcpProxy {
  url: string;
  /** Destroys every open connection; with `refuse`, new ones are cut at once until `restore()`. */
  drop(opts?: { refuse?: boolean }): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startProxy(target: URL, listenPort = 0): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((ok) => server.listen(listenPort, '127.0.0.1', ok));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    drop(opts = {}) {
      if (opts.refuse) refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      refusing = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
