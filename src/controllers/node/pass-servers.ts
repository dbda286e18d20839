// The MySQL servers one reconcile pass talks to: a connection per server opened on first use and
// reused for every read and step of the pass, all closed at its end. An unreachable server is an
// observation (ServerView), not an exception.
import type { ConnectParams, MysqlNode } from '../../mysql/index.ts';
import type { Endpoint, ServerView } from './node-state.ts';
import { observeServer, unreachableView } from './observe-server.ts';

export class PassServers {
  readonly #open = new Map<string, Promise<MysqlNode>>();
  readonly #params: (e: Endpoint) => ConnectParams;
  readonly #connect: (p: ConnectParams) => Promise<MysqlNode>;

  constructor(params: (e: Endpoint) => ConnectParams, connect: (p: ConnectParams) => Promise<MysqlNode>) {
    this.#params = params;
    this.#connect = connect;
  }

  node(e: Endpoint): Promise<MysqlNode> {
    const id = `${e.host}:${e.port}`;
    let n = this.#open.get(id);
    if (!n) {
      n = this.#connect(this.#params(e));
      // A failed connect is retried on the next call rather than remembered.
      n.catch(() => this.#open.delete(id));
      this.#open.set(id, n);
    }
    return n;
  }

  async observe(e: Endpoint): Promise<ServerView> {
    try {
      return await observeServer(await this.node(e));
    } catch (err) {
      await this.#forget(e);
      return unreachableView(err);
    }
  }

  async #forget(e: Endpoint): Promise<void> {
    const id = `${e.host}:${e.port}`;
    const n = this.#open.get(id);
    this.#open.delete(id);
    await n?.then((x) => x.close(), () => undefined);
  }

  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((n) => n.then((x) => x.close(), () => undefined)));
  }
}
