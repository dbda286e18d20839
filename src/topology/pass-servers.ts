// The MySQL servers one reconcile pass talks to, as the operator user: a connection per server
// opened on first use and reused for every read and step of the pass, all closed at its end. An
// unreachable server is an observation (ServerView), not an exception.
import { connectNode, type ConnectParams, type KilledSessions, type MysqlNode } from '../mysql/index.ts';
import { observeGtid, observeRole, observeServer, unreachableView } from './observe-server.ts';
import { asNode, type PodView } from './pod-view.ts';
import type { Endpoint, GtidView, NodeView, RoleView, ServerView, UnreachableServer } from './server-view.ts';

export interface PassServersOptions {
  connect?: (p: ConnectParams) => Promise<MysqlNode>;
  /** Default 3000. */
  connectTimeoutMs?: number;
  /** Per statement; default 10000. */
  queryTimeoutMs?: number;
}

export class PassServers {
  readonly #open = new Map<string, Promise<MysqlNode>>();
  readonly #login: { user: string; password: string };
  readonly #opts: PassServersOptions;
  readonly #systemUsers: readonly string[];

  /**
   * `login`: the operator user of the operated Secret; `systemUsers`: the accounts of the operated
   * Secret, whose sessions killClientSessions spares.
   */
  constructor(login: { user: string; password: string }, opts: PassServersOptions = {}, systemUsers: readonly string[] = []) {
    this.#login = login;
    this.#opts = opts;
    this.#systemUsers = systemUsers;
  }

  /** The fence on demotion (src/mysql/fence.ts): a read-only server's client sessions killed. Throws MysqlError. */
  async killClientSessions(e: Endpoint): Promise<KilledSessions> {
    return (await this.node(e)).killClientSessions([this.#login.user, ...this.#systemUsers]);
  }

  node(e: Endpoint): Promise<MysqlNode> {
    const id = key(e);
    let n = this.#open.get(id);
    if (!n) {
      const { connect = connectNode, connectTimeoutMs = 3000, queryTimeoutMs = 10_000 } = this.#opts;
      n = connect({ host: e.host, port: e.port, ...this.#login, connectTimeoutMs, queryTimeoutMs });
      // A failed connect is retried on the next call rather than remembered.
      n.catch(() => this.#open.delete(id));
      this.#open.set(id, n);
    }
    return n;
  }

  observe(e: Endpoint): Promise<ServerView> {
    return this.#read(e, observeServer);
  }

  observeRole(e: Endpoint): Promise<RoleView> {
    return this.#read(e, observeRole);
  }

  observeGtid(e: Endpoint): Promise<GtidView> {
    return this.#read(e, observeGtid);
  }

  async #read<T>(e: Endpoint, read: (n: MysqlNode) => Promise<T>): Promise<T | UnreachableServer> {
    try {
      return await read(await this.node(e));
    } catch (err) {
      await this.#forget(e);
      return unreachableView(err);
    }
  }

  /** Each pod as a node of the topology; a pod whose mysql is not running is not observed. */
  observeNodes(pods: readonly PodView[]): Promise<NodeView[]> {
    return this.#nodes(pods, (e) => this.observe(e));
  }

  /** observeNodes, reading only what says the server's role (read_only, replication source). */
  observeRoles(pods: readonly PodView[]): Promise<NodeView<RoleView>[]> {
    return this.#nodes(pods, (e) => this.observeRole(e));
  }

  #nodes<S extends RoleView>(pods: readonly PodView[], read: (e: Endpoint) => Promise<S>): Promise<NodeView<S>[]> {
    return Promise.all(pods.map(async (p) => asNode(p, p.mysqlRunning && !p.deleting ? await read(p.endpoint) : null)));
  }

  /** Hands the connection to `e` to the caller, who closes it: closeAll() no longer does. */
  async keep(e: Endpoint): Promise<MysqlNode> {
    const n = await this.node(e);
    this.#open.delete(key(e));
    return n;
  }

  async #forget(e: Endpoint): Promise<void> {
    const id = key(e);
    const n = this.#open.get(id);
    this.#open.delete(id);
    await n?.then(
      (x) => x.close(),
      () => undefined,
    );
  }

  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(
      all.map((n) =>
        n.then(
          (x) => x.close(),
          () => undefined,
        ),
      ),
    );
  }
}

function key(e: Endpoint): string {
  return `${e.host}:${e.port}`;
}
