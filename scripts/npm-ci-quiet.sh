#!/usr/bin/env bash
# `npm ci` for install-deps.sh, quiet on a machine whose own Node is older than the project's.
# npm runs on the machine's Node (Debian's 20) because Node 24 only arrives with the packages, so
# it warns `EBADENGINE` once for every package whose `engines` asks for a newer Node (six today:
# this project, which wants 24, and five that want 22). On such a machine those warnings are
# expected and say nothing: their lines are left out. Every other line npm writes to stderr (other
# warnings, errors) is shown, and npm's exit status is this script's.
set -euo pipefail
{ npm ci --no-fund --no-audit "$@" 2>&1 >/dev/null | { grep -Ev '^npm (warn|WARN) EBADENGINE( |$)' || true; }; } >&2
