// GTID sets as text. MySQL (and xtrabackup's binlog info file) break long sets over several
// lines (`uuid:1-5,\nuuid:1-3`); the operator compares, stores and seeds them in one form.

/** The set without the whitespace servers and backup tools put into it. */
export function compactGtidSet(set: string): string {
  return set.replace(/\s+/g, '');
}

/** A MariaDB GTID position (`domain-server-seq,...`) as the highest sequence number per domain. */
export function gtidSequences(pos: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const part of pos.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
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
