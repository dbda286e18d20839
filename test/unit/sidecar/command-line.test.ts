// The sidecar binary accepts exactly the container args the cluster controller renders for the
// sidecar image (taken from the rendered StatefulSet), and refuses anything else by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container } from '@kubernetes/client-node';
import { CONTAINER } from '../../../src/api/constants.ts';
import { podFilePaths } from '../../../src/sidecar/config.ts';
import { parseCommandLine, type CommandLine, type ParsedCommandLine } from '../../../src/sidecar/command-line.ts';
import { cluster, render } from '../cluster/builders.ts';

function sidecarImageContainers(mysqlVersion: string): Map<string, V1Container> {
  const queryLimits = { maxQueryTime: 30, maxIdleTime: 60, ignoreDb: ['a', 'b'], ignoreUser: ['root'] };
  const pod = render(cluster({ mysqlVersion, queryLimits })).statefulSet.spec!.template.spec!;
  const sidecarImage = pod.initContainers!.find((c) => c.name === CONTAINER.init)!.image;
  const all = [...(pod.initContainers ?? []), ...pod.containers].filter((c) => c.image === sidecarImage);
  return new Map(all.map((c) => [c.name, c]));
}

function parsed(line: CommandLine): ParsedCommandLine {
  if (!line.ok) assert.fail(line.error);
  return line.value;
}

for (const version of ['5.7', '8.0', 'mariadb-10.11']) {
  test(`the args rendered for the sidecar image's containers parse as their subcommands (${version})`, () => {
    const containers = sidecarImageContainers(version);
    assert.deepEqual([...containers.keys()].sort(), [CONTAINER.init, CONTAINER.heartbeat, 'pt-kill', CONTAINER.sidecar].sort());
    // No `command`: the image's entrypoint receives the args.
    for (const c of containers.values()) assert.equal(c.command, undefined, c.name);

    assert.equal(parsed(parseCommandLine(containers.get(CONTAINER.init)!.args!)).command, 'clone-and-init');
    assert.equal(parsed(parseCommandLine(containers.get(CONTAINER.sidecar)!.args!)).command, 'config-and-serve');
    const heartbeat = parsed(parseCommandLine(containers.get(CONTAINER.heartbeat)!.args!));
    assert.equal(heartbeat.command, 'heartbeat');
    assert.deepEqual(heartbeat.overrides, []);
    // The file clone-and-init writes in the conf volume the container mounts.
    assert.equal(heartbeat.heartbeat.defaultsFile, podFilePaths('/etc/mysql').heartbeat);
    assert.equal(heartbeat.heartbeat.failSuccessiveErrors, 20);
  });
}

test('pt-kill is the toolkit binary of the image, not a sidecar subcommand', () => {
  const args = sidecarImageContainers('mariadb-10.11').get('pt-kill')!.args!;
  assert.equal(args[0], 'pt-kill');
  assert.deepEqual(parseCommandLine(args), { ok: false, error: "unknown command 'pt-kill'" });
});

test('run is config-and-serve; the sidecar commands take their --flag=value overrides', () => {
  const line = parsed(parseCommandLine(['run', '--http-port=0', '--data-dir=/d']));
  assert.equal(line.command, 'config-and-serve');
  assert.deepEqual(line.overrides, ['--http-port=0', '--data-dir=/d']);
  assert.deepEqual(parsed(parseCommandLine(['take-backup-to', 'h', 'file:///x'])).positional, ['h', 'file:///x']);
});

test('unknown flags, stray arguments and missing commands are refused by name', () => {
  const error = (argv: string[]) => {
    const r = parseCommandLine(argv);
    assert.equal(r.ok, false, argv.join(' '));
    return r.ok ? '' : r.error;
  };
  assert.equal(error([]), 'no command given');
  assert.match(error(['clone-and-init', '--datadir=/x']), /^clone-and-init: unknown flag '--datadir' \(flags are --config-dir=\.\.\./);
  assert.match(error(['config-and-serve', '--http-port']), /unknown flag '--http-port'/);
  assert.equal(error(['clone-and-init', 'now']), "clone-and-init takes no arguments, got 'now'");
  assert.equal(error(['take-backup-to', 'h']), 'take-backup-to takes 2 arguments, got 1');
  // pt-heartbeat's options are its own, not the sidecar's overrides.
  assert.match(error(['pt-heartbeat', '--update', '--config-dir=/x']), /^pt-heartbeat: unsupported option '--config-dir'/);
});

test('pt-heartbeat accepts --name value and --name=value, and refuses what this heartbeat does not do', () => {
  const line = parsed(
    parseCommandLine([
      'pt-heartbeat',
      '--update',
      '--defaults-file=/c/hb.conf',
      '--fail-successive-errors',
      '3',
      '--database=sys_operator',
    ]),
  );
  assert.deepEqual(line.heartbeat, { defaultsFile: '/c/hb.conf', failSuccessiveErrors: 3 });
  assert.deepEqual(parsed(parseCommandLine(['pt-heartbeat', '--update'])).heartbeat, {
    defaultsFile: undefined,
    failSuccessiveErrors: undefined,
  });
  const refused: Array<[string[], RegExp]> = [
    [['--monitor'], /unsupported option '--monitor'/],
    [[], /only --update is implemented/],
    [['--update', '--database', 'other'], /writes sys_operator\.heartbeat only, not other\.heartbeat/],
    [['--update', '--table=hb'], /not sys_operator\.hb/],
    [['--update', '--defaults-file'], /--defaults-file needs a value/],
    [['--update', '--fail-successive-errors=0'], /--fail-successive-errors='0' is not a positive integer/],
    [['--update=1'], /--update takes no value/],
    [['--update', 'extra'], /takes no arguments, got 'extra'/],
  ];
  for (const [args, message] of refused) {
    const r = parseCommandLine(['pt-heartbeat', ...args]);
    assert.ok(!r.ok && message.test(r.error), `${args.join(' ')}: ${r.ok ? 'accepted' : r.error}`);
  }
});
