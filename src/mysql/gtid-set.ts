// GTID sets as text. MySQL (and xtrabackup's binlog info file) break long sets over several
// lines (`uuid:1-5,\nuuid:1-3`); the operator compares, stores and seeds them in one form.

/** The set without the whitespace servers and backup tools put into it. */
export function compactGtidSet(set: string): string {
  return set.replace(/\s+/g, '');
}
