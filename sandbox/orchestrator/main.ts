// Runs the Orchestrator stand-in as its own process (tests, sandbox; never the chart):
//   node sandbox/orchestrator/main.ts --listen 127.0.0.1:0 --config <orchestrator.conf.json>
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseConfig } from './config.ts';
import { startOrchestratorStandIn } from './index.ts';

const { values } = parseArgs({ options: { listen: { type: 'string', default: '127.0.0.1:3000' }, config: { type: 'string' } } });
if (!values.config) {
  process.stderr.write('orchestrator stand-in: --config <file> is required\n');
  process.exit(2);
}
const m = /^(.*):(\d+)$/.exec(values.listen);
if (!m) {
  process.stderr.write(`orchestrator stand-in: --listen must be host:port, got ${values.listen}\n`);
  process.exit(2);
}
const standIn = await startOrchestratorStandIn({
  config: parseConfig(readFileSync(values.config, 'utf8'), (path) => readFileSync(path, 'utf8')),
  host: m[1],
  port: Number(m[2]),
});
process.stdout.write(`${JSON.stringify({ msg: 'Orchestrator stand-in listening (not a real Orchestrator)', url: standIn.url })}\n`);
const shutdown = (): void => {
  void standIn.stop().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
