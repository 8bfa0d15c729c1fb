// A TCP proxy on 127.0.0.1 in front of a real server (Redis, for the stall tests and benchmarks)
// that can freeze: while frozen it keeps every connection open and accepts new ones, reads what
// clients send and holds it, and passes nothing either way, as a Redis that stopped answering
// looks from outside (the process stuck, its socket still accepting). thaw() delivers what it held.

import net from 'node:net';

export interface FreezingProxy {
  port: number;
  /** redis://127.0.0.1:<port>/<db> */
  url(db?: number): string;
  /** From now on nothing passes; data is held, connections stay open. */
  freeze(): void;
  /** Passes everything held, then works as a plain proxy again. */
  thaw(): void;
  readonly frozen: boolean;
  /** Client connections accepted so far. */
  readonly connections: number;
  /** Bytes clients sent since the last freeze() (held or passed). */
  readonly bytesFromClients: number;
  close(): Promise<void>;
}

interface Pipe {
  client: net.Socket;
  server: net.Socket;
  /** Bytes held per direction while frozen. */
  toServer: Buffer[];
  toClient: Buffer[];
}

export async function startFreezingProxy(target: { host: string; port: number }): Promise<FreezingProxy> {
  let frozen = false;
  let connections = 0;
  let bytesFromClients = 0;
  const pipes = new Set<Pipe>();

  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(target.port, target.host);
    const pipe: Pipe = { client, server: upstream, toServer: [], toClient: [] };
    pipes.add(pipe);
    client.on('data', (chunk: Buffer) => {
      bytesFromClients += chunk.length;
      if (frozen) pipe.toServer.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => (frozen ? pipe.toClient.push(chunk) : client.write(chunk)));
    const end = () => {
      pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    url: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    freeze() {
      frozen = true;
      bytesFromClients = 0;
    },
    thaw() {
      frozen = false;
      for (const pipe of pipes) {
        for (const chunk of pipe.toServer.splice(0)) pipe.server.write(chunk);
        for (const chunk of pipe.toClient.splice(0)) pipe.client.write(chunk);
      }
    },
    get frozen() {
      return frozen;
    },
    get connections() {
      return connections;
    },
    get bytesFromClients() {
      return bytesFromClients;
    },
    async close() {
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.server.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
