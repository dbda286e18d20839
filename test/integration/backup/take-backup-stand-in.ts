// A scripted stand-in for the sidecar's `take-backup-to <host> <url>` until the storage branch's
// lands: it checks what the Job gives it (the backup user from the operated Secret, the
// credentials Secret's keys), writes a small gzip object through src/storage, and reports as the
// real one does: one JSON line on stdout and in the termination log (TERMINATION_LOG_FILE here,
// /dev/termination-log in a pod). STAND_IN_FAIL makes it fail as an upload would, leaving nothing.
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { BackupReport } from '../../../src/api/backup-report.ts';
import { storageFor } from '../../../src/storage/index.ts';

const [command, host, url] = process.argv.slice(2);
if (command !== 'take-backup-to' || !host || !url) {
  console.error('usage: take-backup-to <host> <url>');
  process.exit(2);
}
for (const key of ['BACKUP_USER', 'BACKUP_PASSWORD', 'AWS_ACCESS_KEY_ID']) {
  if (!process.env[key]) {
    console.error(`${key} is not set`);
    process.exit(2);
  }
}
if (process.env.STAND_IN_FAIL) {
  console.error(`upload to ${url} failed: ${process.env.STAND_IN_FAIL}`);
  process.exit(1);
}
const started = new Date();
const stream = Buffer.from(`xbstream of ${host}\n`.repeat(100));
const { bytes } = await storageFor(url, process.env).upload(url, Readable.from([gzipSync(stream)]));
const completed = new Date();
const report: BackupReport = {
  url,
  bytes,
  streamBytes: stream.length,
  source: host,
  startTime: started.toISOString(),
  completionTime: completed.toISOString(),
  durationSeconds: (completed.getTime() - started.getTime()) / 1000,
  position: { binlogFile: 'mysql-bin.000002', binlogPosition: 4711, gtid: '0-101-17' },
};
const line = JSON.stringify(report);
console.log(line);
if (process.env.TERMINATION_LOG_FILE) writeFileSync(process.env.TERMINATION_LOG_FILE, line);
