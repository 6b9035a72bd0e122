// Starting and stopping the local stand-ins' HTTP servers (identity provider, price feeds).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `port` (0: any free one) and resolves with the port given, or rejects if it cannot listen. */
export const listen = (server: Server, port: number, host: string): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

/** Closes the server and every connection still open on it. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
