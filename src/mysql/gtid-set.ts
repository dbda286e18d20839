// GTID sets as text. MySQL (and xtrabackup's binlog info file) break long sets over several
// lines (`uuid:1-5,\nuuid:1-3`); the operator compares, stores and seeds them in one form.

/** The set without the whitespace servers and backup tools put into it. */
export function compactGtidSet(set: string): string {
  return set.replace(/\s+/g, '');
}

/** A MariaDB GTID position (`domain-server-seq,...`) as the highest sequence number per domain. */
export function gtidSequences(pos: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const part of pos
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const [domain, , seq] = part.split('-');
    if (domain !== undefined && seq !== undefined) m.set(domain, Math.max(m.get(domain) ?? 0, Number(seq)));
  }
  return m;
}

/** True when MariaDB position `a` holds every transaction of position `b` (per GTID domain). */
export function gtidCovers(a: string, b: string): boolean {
  const as = gtidSequences(a);
  for (const [domain, seq] of gtidSequences(b)) if ((as.get(domain) ?? 0) < seq) return false;
  return true;
}

/**
 * True when a server whose own position is `have` (MySQL gtid_executed, MariaDB gtid_current_pos)
 * already holds every transaction of `want`: per domain on MariaDB (positions, not histories), as
 * a set on MySQL.
 */
export function positionHolds(family: 'mysql' | 'mariadb', have: string, want: string): boolean {
  return family === 'mariadb' ? gtidCovers(have, want) : extraMysqlGtids(want, have).length === 0;
}

/**
 * The transactions of `server`'s history that `master`'s history lacks: errant transactions that
 * forbid making `server` a replica of `master` (it would diverge, or replication fails with
 * 1236/1950) and keep it out of the read Services. Histories are what `gtidHistoryQuery` reads:
 * - MariaDB `gtid_binlog_state`: the last GTID per (domain, server_id). Sequence numbers are
 *   domain-wide, so comparing positions per domain (gtidCovers) misses an old master's write once
 *   the new master has written more, and a replica's own write (its server_id, a sequence number
 *   the master also reaches); per (domain, server_id) it does not. Each entry of `server` whose
 *   (domain, server_id) the master has at a lower sequence is returned; one the master does not
 *   have at all is returned unless `masterBase` holds it.
 *   `masterBase` is the position the master was cloned or restored at (its `backup_gtid_purged`
 *   row; '' for a server never cloned): a clone's binlog starts empty, so its binlog state names
 *   none of the servers that wrote before the clone, though it holds their transactions up to that
 *   position. An entry whose server_id the master's binlog never shows is the master's when its
 *   sequence is at or below the base of its domain. (An entry the master has at a lower sequence
 *   was written after the master's clone, so the base never excuses it.)
 * - MySQL `gtid_executed`: GTID sets (a clone's `gtid_purged` is part of them); the result is the
 *   set difference, one `uuid:intervals` each. `masterBase` is not needed.
 */
export function extraGtids(family: 'mysql' | 'mariadb', server: string, master: string, masterBase = ''): string[] {
  return family === 'mariadb' ? extraMariadbGtids(server, master, masterBase) : extraMysqlGtids(server, master);
}

function mariadbState(state: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const part of compactGtidSet(state)
    .split(',')
    .filter((s) => s !== '')) {
    const [domain, server, seq] = part.split('-');
    if (domain === undefined || server === undefined || seq === undefined) continue;
    const key = `${domain}-${server}`;
    m.set(key, Math.max(m.get(key) ?? 0, Number(seq)));
  }
  return m;
}

function extraMariadbGtids(server: string, master: string, masterBase: string): string[] {
  const have = mariadbState(master);
  const base = gtidSequences(compactGtidSet(masterBase));
  const held = (key: string, seq: number): boolean => {
    const at = have.get(key);
    if (at !== undefined) return seq <= at;
    return seq <= (base.get(key.split('-')[0] ?? '') ?? 0);
  };
  return [...mariadbState(server)].filter(([key, seq]) => !held(key, seq)).map(([key, seq]) => `${key}-${seq}`);
}

type Intervals = [number, number][];

/** `uuid:1-5:7,uuid2:3` → uuid → intervals; a tagged group (MySQL 8.4 `uuid:tag:1-3`) is keyed `uuid:tag`. */
function mysqlSet(set: string): Map<string, Intervals> {
  const m = new Map<string, Intervals>();
  for (const part of compactGtidSet(set)
    .toLowerCase()
    .split(',')
    .filter((s) => s !== '')) {
    const [uuid = '', ...fields] = part.split(':');
    let key = uuid;
    for (const f of fields) {
      const r = /^(\d+)(?:-(\d+))?$/.exec(f);
      if (r) m.set(key, [...(m.get(key) ?? []), [Number(r[1]), Number(r[2] ?? r[1])]]);
      else key = `${uuid}:${f}`;
    }
  }
  return m;
}

function subtract(a: Intervals, b: Intervals): Intervals {
  let out: Intervals = [...a].sort((x, y) => x[0] - y[0]);
  for (const [bs, be] of b) {
    out = out.flatMap(([s, e]): Intervals => {
      if (be < s || bs > e) return [[s, e]];
      const keep: Intervals = [];
      if (s < bs) keep.push([s, bs - 1]);
      if (e > be) keep.push([be + 1, e]);
      return keep;
    });
  }
  return out;
}

function extraMysqlGtids(server: string, master: string): string[] {
  const have = mysqlSet(master);
  const out: string[] = [];
  for (const [key, list] of mysqlSet(server)) {
    const rest = subtract(list, have.get(key) ?? []);
    if (rest.length > 0) out.push(`${key}:${rest.map(([s, e]) => (s === e ? `${s}` : `${s}-${e}`)).join(':')}`);
  }
  return out;
}
