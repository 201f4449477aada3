import type { Server, Socket } from 'node:net';
import { rawAnswer } from './client-errors.js';

/** A TLS connection opens with a handshake record; anything else is not TLS. */
const TLS_HANDSHAKE = 0x16;
/** A connection that sends nothing is closed after this long, as Node's handshake timeout would. */
const FIRST_BYTE_MS = 10_000;

/**
 * Lets an HTTPS server answer a plain-HTTP request with a message instead of dropping the
 * connection (curl: "empty reply"; Node: "socket hang up"). Each new connection's first
 * byte is read before TLS sees it: a handshake goes on to TLS with the byte put back,
 * anything else gets 400 `https_required` and the connection closes.
 */
export function answerPlainHttpOnTls(server: Server): void {
  const tls = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const drop = () => socket.destroy();
    socket.on('error', drop);
    socket.setTimeout(FIRST_BYTE_MS, drop);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk); // TLS reads what a socket has buffered before it takes it over
      socket.setTimeout(0);
      socket.off('error', drop);
      if (chunk[0] === TLS_HANDSHAKE) {
        for (const listener of tls) listener.call(server, socket);
        return;
      }
      socket.on('error', drop);
      // Read on (and drop) what else comes, so that the client's end is seen and the socket
      // closes: a paused one would stay open, and hold up the server's close for ever.
      socket.resume();
      socket.end(rawAnswer('https_required', 'This port speaks HTTPS, not plain HTTP: use an https:// URL'));
    });
  });
}
