// my.cnf of a cluster: one [mysqld] section, written byte for byte the way the anchor writes it
// (go-ini v1.62 "pretty" output), so an adopted cluster's ConfigMap does not change and its pods
// do not roll. Keys come in four groups, each sorted bytewise and never re-sorted across groups:
// the server line's table, the bare boolean keys, the common keys, then spec.mysqlConf with the
// values computed from resources. A mysqlConf key already present in an earlier group keeps that
// position and takes the user's value.
import { quantityMilli, quantityNumber } from '../../api/quantity.ts';
import { atLeast } from '../../api/versions.ts';
import type { ServerVersion } from '../shared/resolve-version.ts';
import { CONF_FILE, confPath, MOUNT_PATH } from '../../api/pod-contract.ts';
import { REPLICA_NET_TIMEOUT_SECONDS } from '../../api/constants.ts';

export type ConfValue = string | number;

export interface MyCnfInput {
  version: ServerVersion;
  /** The anchor adds binlog-space-limit only for Percona Server images. */
  perconaImage: boolean;
  memoryRequest?: string | number;
  cpuLimit?: string | number;
  /** Storage request of the data PVC, if the data volume is a PVC. */
  storageRequest?: string | number;
  mysqlConf?: Readonly<Record<string, ConfValue>>;
  /**
   * Ours, the lossless defaults (`lossless` below): a commit is on disk when it returns
   * (innodb-flush-log-at-trx-commit and sync-binlog 1) and a replica gives up on a silent master
   * within REPLICA_NET_TIMEOUT_SECONDS, unless mysqlConf says otherwise. Only for clusters with
   * lossless defaults: an adopted cluster's my.cnf keeps the anchor's bytes (docs/semi-sync.md).
   */
  durableCommits?: boolean;
}

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;

const SQL_MODE_57 =
  'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION,NO_ZERO_DATE,NO_ZERO_IN_DATE,ONLY_FULL_GROUP_BY';
const SQL_MODE_8 =
  'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION,NO_ZERO_DATE,NO_ZERO_IN_DATE,ONLY_FULL_GROUP_BY';

const COMMON: Readonly<Record<string, string>> = {
  'log-bin': `${MOUNT_PATH.data}/mysql-bin`,
  'log-slave-updates': 'on',
  'skip-slave-start': 'on',
  'relay-log-info-repository': 'TABLE',
  'relay-log-recovery': 'on',
  'master-info-repository': 'TABLE',
  'default-storage-engine': 'InnoDB',
  'gtid-mode': 'on',
  'enforce-gtid-consistency': 'on',
  'key-buffer-size': '32M',
  'myisam-recover-options': 'FORCE,BACKUP',
  'max-allowed-packet': '16M',
  'max-connect-errors': '1000000',
  'sysdate-is-now': '1',
  'sync-binlog': '1',
  'binlog-format': 'ROW',
  'tmp-table-size': '32M',
  'max-heap-table-size': '32M',
  'max-connections': '500',
  'thread-cache-size': '50',
  'open-files-limit': '65535',
  'table-definition-cache': '4096',
  'table-open-cache': '4096',
  'innodb-flush-method': 'O_DIRECT',
  'innodb-log-files-in-group': '2',
  'innodb-flush-log-at-trx-commit': '2',
  'innodb-file-per-table': '1',
  'character-set-server': 'utf8mb4',
  'collation-server': 'utf8mb4_unicode_ci',
};

/**
 * Lossless defaults (docs/semi-sync.md): durable commits (the redo log and the binary log flushed at
 * every commit), and a replica that notices a master cut off within 4 s (the net timeout; a
 * CHANGE MASTER then sets heartbeats every 2 s). Orchestrator calls a master dead only once its
 * replicas lost it too; with the servers' default of 60 s, a partitioned master went unrecovered
 * for up to a minute. Orchestrator's documentation recommends a few seconds.
 */
function lossless(v: ServerVersion): Readonly<Record<string, string>> {
  const replicaNames = v.family === 'mysql' && atLeast(v, 8, 0, 26);
  return {
    'innodb-flush-log-at-trx-commit': '1',
    'sync-binlog': '1',
    [replicaNames ? 'replica-net-timeout' : 'slave-net-timeout']: String(REPLICA_NET_TIMEOUT_SECONDS),
  };
}

interface KeyTables {
  line: Record<string, string>;
  booleans: string[];
  common: Record<string, string>;
}

function without(table: Readonly<Record<string, string>>, drop: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(table).filter(([k]) => !drop.includes(k)));
}

function tablesFor(v: ServerVersion): KeyTables {
  if (v.family === 'mariadb') {
    // MariaDB refuses to start on options it does not know: no MySQL GTID switches, no
    // *-info-repository (it keeps replica state in files/tables of its own), and
    // innodb-log-files-in-group is gone since 10.6.
    return {
      line: { 'expire-logs-days': '14', 'query-cache-size': '0', 'query-cache-type': '0', 'sql-mode': SQL_MODE_57 },
      booleans: ['skip-host-cache', 'skip-name-resolve'],
      common: without(COMMON, [
        'gtid-mode',
        'enforce-gtid-consistency',
        'master-info-repository',
        'relay-log-info-repository',
        'innodb-log-files-in-group',
      ]),
    };
  }
  if (v.major === 5) {
    return {
      line: { 'expire-logs-days': '14', 'query-cache-size': '0', 'query-cache-type': '0', 'sql-mode': SQL_MODE_57 },
      booleans: ['skip-host-cache', 'skip-name-resolve'],
      common: { ...COMMON },
    };
  }
  if (!atLeast(v, 8, 4)) {
    return {
      line: {
        binlog_expire_logs_seconds: '1209600',
        'default-authentication-plugin': 'mysql_native_password',
        'sql-mode': SQL_MODE_8,
      },
      booleans: ['skip-host-cache', 'skip-name-resolve'],
      common: { ...COMMON },
    };
  }
  // 8.4 removed skip-host-cache, default-authentication-plugin, the *-info-repository options and
  // the slave spellings of these two; the redo log is sized by innodb-redo-log-capacity.
  return {
    line: { 'binlog-expire-logs-seconds': '1209600', 'sql-mode': SQL_MODE_8 },
    booleans: ['skip-name-resolve'],
    common: {
      ...without(COMMON, [
        'master-info-repository',
        'relay-log-info-repository',
        'innodb-log-files-in-group',
        'log-slave-updates',
        'skip-slave-start',
      ]),
      'host-cache-size': '0',
      'log-replica-updates': 'on',
      'skip-replica-start': 'on',
    },
  };
}

/** spec.mysqlConf plus the values the anchor derives from resources (set only when absent). */
export function effectiveMysqlConf(input: MyCnfInput): Record<string, ConfValue> {
  const conf: Record<string, ConfValue> = { ...(input.mysqlConf ?? {}) };
  const setIfAbsent = (k: string, v: ConfValue): void => {
    if (!(k in conf)) conf[k] = v;
  };
  const v = input.version;
  const mem = Math.ceil(quantityNumber(input.memoryRequest) ?? 0);

  let bufferPool = 128 * MB; // the server's own default
  const computedPool = innodbBufferPoolSize(mem);
  if (computedPool !== undefined) {
    bufferPool = computedPool;
    setIfAbsent('innodb-buffer-pool-size', humanizeSize(computedPool));
  }

  const logFile = innodbLogFileSize(mem);
  if (v.family === 'mysql' && atLeast(v, 8, 4)) setIfAbsent('innodb-redo-log-capacity', humanizeSize(2 * logFile));
  else setIfAbsent('innodb-log-file-size', humanizeSize(logFile));

  const storage = quantityNumber(input.storageRequest);
  if (storage !== undefined) {
    const space = Math.ceil(storage);
    let spaceLimit = Math.trunc(space / 2);
    let maxBinlog = Math.min(Math.trunc(spaceLimit / 4), GB);
    if (space < 2 * GB) {
      spaceLimit = Math.trunc(space / 3);
      maxBinlog = Math.min(Math.trunc(spaceLimit / 3), GB);
    }
    if (v.family === 'mariadb') {
      if (atLeast(v, 11, 4)) setIfAbsent('max-binlog-total-size', humanizeSize(spaceLimit));
    } else if (input.perconaImage) {
      setIfAbsent('binlog-space-limit', humanizeSize(spaceLimit));
    }
    setIfAbsent('max-binlog-size', humanizeSize(maxBinlog));
  }

  const cpuMilli = quantityMilli(input.cpuLimit);
  // MariaDB 10.6 removed innodb-buffer-pool-instances (one instance only).
  if (v.family === 'mysql' && cpuMilli !== undefined && cpuMilli > 0) {
    const cpus = Math.ceil(cpuMilli / 1000);
    setIfAbsent('innodb-buffer-pool-instances', Math.max(Math.min(cpus, Math.floor(bufferPool / GB)), 1));
  }
  return conf;
}

function innodbBufferPoolSize(mem: number): number | undefined {
  if (mem <= 512 * MB) return undefined;
  if (mem <= GB) return Math.trunc((mem - 256 * MB) * 0.5);
  if (mem <= 4 * GB) return Math.trunc((mem - 256 * MB) * 0.75);
  return Math.trunc((mem - 512 * MB) * 0.8);
}

function innodbLogFileSize(mem: number): number {
  if (mem < GB) return 48 * MB;
  if (mem <= 4 * GB) return 128 * MB;
  if (mem <= 8 * GB) return 512 * MB;
  if (mem <= 16 * GB) return GB;
  return 2 * GB;
}

/** "384M", "2560M", "1G": the largest unit that divides the value within 0.1%. */
export function humanizeSize(value: number): string {
  const allow = Math.trunc(value / 1000);
  for (const [scale, unit] of [
    [GB, 'G'],
    [MB, 'M'],
    [KB, 'K'],
  ] as const) {
    if (value >= scale && value % scale <= allow) return `${Math.trunc(value / scale)}${unit}`;
  }
  return String(value);
}

interface IniKey {
  name: string;
  value: string | null; // null: a bare (boolean) key
}

export function renderMyCnf(input: MyCnfInput): string {
  const tables = tablesFor(input.version);
  const keys: IniKey[] = [];
  const index = new Map<string, IniKey>();
  const add = (name: string, value: string | null): void => {
    const existing = index.get(name);
    if (existing) {
      if (existing.value !== null) existing.value = value ?? '';
      return;
    }
    const key = { name, value };
    keys.push(key);
    index.set(name, key);
  };
  const addSorted = (table: Readonly<Record<string, ConfValue>>): void => {
    for (const k of bytewiseSorted(Object.keys(table))) add(k, String(table[k]));
  };
  addSorted(tables.line);
  for (const k of bytewiseSorted(tables.booleans)) add(k, null);
  addSorted(input.durableCommits ? { ...tables.common, ...lossless(input.version) } : tables.common);
  addSorted(effectiveMysqlConf(input));
  add(`!includedir ${confPath(CONF_FILE.confD)}`, null);
  return writeIniSection('mysqld', keys);
}

function bytewiseSorted(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

// go-ini quotes key names holding a delimiter or a quote, and values with line breaks, backticks
// or surrounding blanks; inline comment characters stay bare (the anchor loads with
// IgnoreInlineComment). Every key is padded to the longest, and the last bare key gets no line
// break of its own: the newline after it is the section separator.
function quoteKey(name: string): string {
  if (/["=:]/.test(name)) return `\`${name}\``;
  if (name.includes('`')) return `"""${name}"""`;
  return name;
}

function quoteValue(value: string): string {
  if (/[\n`]/.test(value)) return `"""${value}"""`;
  if (value.trim().length !== value.length) return `"${value}"`;
  return value;
}

function writeIniSection(section: string, keys: readonly IniKey[]): string {
  const width = Math.max(0, ...keys.map((k) => quoteKey(k.name).length));
  let out = `[${section}]\n`;
  keys.forEach((k, i) => {
    const name = quoteKey(k.name);
    if (k.value === null) {
      out += name;
      if (i !== keys.length - 1) out += '\n';
      return;
    }
    out += `${name + ' '.repeat(width - name.length)} = ${quoteValue(k.value)}\n`;
  });
  return `${out}\n`;
}
