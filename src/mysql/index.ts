// MySQL access: the only door to MySQL/MariaDB servers and the only place holding SQL.
export * from './flavour.ts';
export * from './errors.ts';
export * from './node.ts';
export * from './replication-status.ts';
export * from './replication-statements.ts';
export * from './operator-schema.ts';
export * from './system-users.ts';
export * from './init-file.ts';
export * from './fence.ts';
export * from './gtid-set.ts';
export * from './accounts.ts';
export { quoteIdentifier, quoteString, render, secret, type Statement } from './sql-text.ts';
export * from './semi-sync.ts';
