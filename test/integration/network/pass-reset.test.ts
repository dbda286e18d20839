// The Service proxy passes a reset on from one side of a connection to the other. Real sockets on
// loopback (no root needed): the case that left the sandbox's process unable to exit.
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { passReset } from '../../../sandbox/network/proxy.ts';

async function heldConnection(t: { after: (fn: () => Promise<void> | void) => void }): Promise<Socket> {
  // A backend that keeps its side open after the proxy's FIN, as a server busy with a query does.
  const accepted: Socket[] = [];
  const server = createServer({ allowHalfOpen: true }, (s) => {
    accepted.push(s);
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const s of accepted) s.destroy();
    server.close();
    await once(server, 'close');
  });
  const upstream = createConnection({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
  upstream.on('error', () => undefined);
  return upstream;
}

test('a reset passed on to a proxied side already ended (its client sent FIN first) closes it', async (t) => {
  const upstream = await heldConnection(t);
  await once(upstream, 'connect');
  upstream.end(); // what pipe() does when the client's FIN arrives
  const closed = once(upstream, 'close');
  passReset(upstream); // then the client's RST
  await closed;
});

test('a reset passed on to a proxied side still connecting closes it at once', async (t) => {
  const upstream = await heldConnection(t);
  if (!upstream.connecting) throw new Error('connected before the test could reset it');
  upstream.end();
  const closed = once(upstream, 'close');
  passReset(upstream);
  await closed;
});
