// Runs the test API server as its own process, for the sandbox and for kubectl:
//   node sandbox/apiserver/main.ts [--port N] [--kubeconfig-out path] [--crds dir-or-file]... [--no-auth] [--tls [--client-cert-auth]] [--service-cidr a.b.c.d/n]
// --client-cert-auth: the kubeconfig written authenticates with a client certificate, not a token.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './index.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'kubeconfig-out': { type: 'string' },
    crds: { type: 'string', multiple: true },
    'no-auth': { type: 'boolean', default: false },
    tls: { type: 'boolean', default: false },
    'client-cert-auth': { type: 'boolean', default: false },
    'service-cidr': { type: 'string' },
  },
});

function yamlFiles(p: string): string[] {
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(p, f));
}

const server = await startApiServer({
  port: Number(values.port),
  token: values['no-auth'] ? null : undefined,
  crds: (values.crds ?? []).flatMap(yamlFiles),
  tls: values.tls,
  clientCertAuth: values['client-cert-auth'],
  ...(values['service-cidr'] ? { serviceCIDR: values['service-cidr'] } : {}),
});
if (values['kubeconfig-out']) server.writeKubeconfig(values['kubeconfig-out']);
process.stdout.write(`${JSON.stringify({ msg: 'test apiserver listening', url: server.url })}\n`);
const shutdown = () => {
  void server.stop().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
