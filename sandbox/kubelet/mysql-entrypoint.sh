#!/usr/bin/env bash
# The entrypoint of the MySQL/Percona/MariaDB images as the sandbox kubelet plays it with the local
# mariadbd (sandbox/kubelet/images.ts). Runs inside the container's mount namespace, so the paths
# are the container's (/etc/mysql, /var/lib/mysql). What the operator's pods rely on from the
# images' docker-entrypoint.sh:
#  - arguments starting with '-' are mysqld's; `mysqld`/`mariadbd` first means "start the server";
#    anything else is run as given;
#  - an empty data directory is initialised first (mariadb-install-db), the root password taken
#    from MYSQL_ROOT_PASSWORD (or MARIADB_*; MYSQL_ALLOW_EMPTY_PASSWORD / MYSQL_RANDOM_ROOT_PASSWORD),
#    root@MYSQL_ROOT_HOST ('%') created, MYSQL_DATABASE and MYSQL_USER/MYSQL_PASSWORD made;
#  - MYSQL_INIT_ONLY=1 (Percona) stops after the initialisation;
#  - then the server is exec'd with the rendered config. Running as root needs --user=root.
# Passwords reach the server on stdin only, never argv or the log.
set -euo pipefail

if [ "${1:0:1}" = '-' ]; then set -- mysqld "$@"; fi
case "${1:-}" in
  mysqld|mariadbd) shift ;;
  *) exec "$@" ;;
esac

root_password="${MYSQL_ROOT_PASSWORD:-${MARIADB_ROOT_PASSWORD:-}}"
allow_empty="${MYSQL_ALLOW_EMPTY_PASSWORD:-${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-}}"
random_root="${MYSQL_RANDOM_ROOT_PASSWORD:-${MARIADB_RANDOM_ROOT_PASSWORD:-}}"
root_host="${MYSQL_ROOT_HOST:-${MARIADB_ROOT_HOST:-%}}"
database="${MYSQL_DATABASE:-${MARIADB_DATABASE:-}}"
user="${MYSQL_USER:-${MARIADB_USER:-}}"
password="${MYSQL_PASSWORD:-${MARIADB_PASSWORD:-}}"

datadir="$(mariadbd "$@" --verbose --help 2>/dev/null | awk '$1 == "datadir" { print $2; exit }')"
datadir="${datadir:-/var/lib/mysql/}"

sql_string() { local s="${1//\\/\\\\}"; printf "'%s'" "${s//\'/\\\'}"; }

if [ ! -d "$datadir/mysql" ]; then
  if [ -z "$root_password" ] && [ -z "$allow_empty" ] && [ -z "$random_root" ]; then
    echo >&2 'entrypoint: database is uninitialized and password option is not specified'
    echo >&2 '  You need to specify one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD and MYSQL_RANDOM_ROOT_PASSWORD'
    exit 1
  fi
  if [ -n "$random_root" ] && [ -z "$root_password" ]; then
    root_password="$(head -c 18 /dev/urandom | base64)"
    echo 'entrypoint: GENERATED ROOT PASSWORD written to the server only (not logged)'
  fi
  echo "entrypoint: initialising the data directory $datadir"
  mkdir -p "$datadir"
  mariadb-install-db "$@" --user=root --datadir="$datadir" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >/dev/null
  socket="$(mktemp -d)/init.sock"
  mariadbd "$@" --user=root --datadir="$datadir" --skip-networking --skip-log-bin --socket="$socket" &
  pid=$!
  for _ in $(seq 300); do
    if mariadb-admin --socket="$socket" -uroot ping >/dev/null 2>&1; then break; fi
    kill -0 "$pid" 2>/dev/null || { echo >&2 'entrypoint: the temporary server failed to start'; exit 1; }
    sleep 0.1
  done
  {
    echo 'SET @@SESSION.SQL_LOG_BIN=0;'
    echo "DELETE FROM mysql.user WHERE user NOT IN ('mysql.sys', 'mariadb.sys', 'root') OR host NOT IN ('localhost');"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $(sql_string "$root_password");"
    if [ "$root_host" != 'localhost' ]; then
      echo "CREATE USER IF NOT EXISTS 'root'@$(sql_string "$root_host") IDENTIFIED BY $(sql_string "$root_password");"
      echo "GRANT ALL ON *.* TO 'root'@$(sql_string "$root_host") WITH GRANT OPTION;"
    fi
    if [ -n "$database" ]; then echo "CREATE DATABASE IF NOT EXISTS \`$database\`;"; fi
    if [ -n "$user" ] && [ -n "$password" ]; then
      echo "CREATE USER $(sql_string "$user")@'%' IDENTIFIED BY $(sql_string "$password");"
      if [ -n "$database" ]; then echo "GRANT ALL ON \`$database\`.* TO $(sql_string "$user")@'%';"; fi
    fi
    echo 'FLUSH PRIVILEGES;'
  } | mariadb --socket="$socket" -uroot
  kill "$pid"
  wait "$pid" || true
  rm -rf "$(dirname "$socket")"
  echo 'entrypoint: initialisation done'
  if [ -n "${MYSQL_INIT_ONLY:-}" ]; then exit 0; fi
fi

exec mariadbd "$@" --user=root
