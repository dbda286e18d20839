// A loopback TCP connection to give a child process as its stdout, in place of the socketpair
// Node would make. The backup tools move data in 10 MiB pieces: mariabackup reads
// 10 MiB of a data file, then writes them to stdout in one call, then reads the next. A
// socketpair holds ~208 KiB, so that write lasts until the reader has taken almost all of it,
// and the disk reads and the network sends take turns. Loopback TCP grows its buffers to
// several MiB (tcp_wmem/tcp_rmem autotuning), so the write returns while the bytes are still
// on their way and the tool is already reading the next piece (docs/sidecar.md, bench/stream).
// The child's end is blocking in the child (libuv makes stdio 0-2 blocking there), as a pipe is.
import { createServer, connect, type AddressInfo, type OnReadOpts, type Socket } from 'node:net';

export interface LoopbackConnection {
  /** Give this to `spawn`'s stdio, then destroy it: the child holds its own copy. */
  childEnd: Socket;
  /** The process's end: the child's output arrives here. */
  ourEnd: Socket;
}

/**
 * Opens a TCP connection to ourselves on 127.0.0.1; `onread` (Node's option of a dialling
 * socket) makes our end read into one given buffer. Only the connection we dialled is taken: any
 * other process in the pod that reaches the short-lived port first is turned away, so nothing
 * foreign can enter a backup stream.
 */
export async function loopbackConnection(onread?: OnReadOpts): Promise<LoopbackConnection> {
  const server = createServer({ noDelay: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  try {
    const arrivals: Socket[] = [];
    let arrived: (() => void) | undefined;
    server.on('connection', (socket) => {
      arrivals.push(socket);
      arrived?.();
    });
    const { port } = server.address() as AddressInfo;
    const ourEnd = connect({ port, host: '127.0.0.1', noDelay: true, ...(onread ? { onread } : {}) });
    await new Promise<void>((resolve, reject) => {
      ourEnd.once('connect', resolve);
      ourEnd.once('error', reject);
    });
    for (;;) {
      const socket = arrivals.shift();
      if (!socket) await new Promise<void>((resolve) => (arrived = resolve));
      else if (socket.remotePort === ourEnd.localPort && socket.remoteAddress === ourEnd.localAddress) return { childEnd: socket, ourEnd };
      else socket.destroy();
    }
  } finally {
    server.close();
  }
}
