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

# The first start's initialisation is built in a directory inside the data directory (the data
# directory is a volume's mount point: a sibling would be another file system, where a rename
# cannot reach) and moved in only once complete, `mysql/` last: `mysql/` is what "initialised"
# means here and to the sidecar. A start killed midway (the kubelet's restart, a node crash) thus
# leaves either an unfinished work directory, thrown away and redone by the next start, or a
# complete one whose move the next start finishes; never a data directory mariadbd crash-loops on.
work="${datadir%/}/.entrypoint-init"
complete_mark="$work/.complete"

initialise() {
  if [ -z "$root_password" ] && [ -z "$allow_empty" ] && [ -z "$random_root" ]; then
    echo >&2 'entrypoint: database is uninitialized and password option is not specified'
    echo >&2 '  You need to specify one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD and MYSQL_RANDOM_ROOT_PASSWORD'
    exit 1
  fi
  if [ -n "$random_root" ] && [ -z "$root_password" ]; then
    root_password="$(head -c 18 /dev/urandom | base64)"
    echo 'entrypoint: GENERATED ROOT PASSWORD written to the server only (not logged)'
  fi
  if [ -e "$work" ]; then echo 'entrypoint: discarding an initialisation an earlier start left unfinished'; fi
  rm -rf "$work"
  echo "entrypoint: initialising the data directory $datadir"
  mkdir -p "$work"
  # As the images' entrypoint: no binary log of the system tables, no buffer pool dump.
  local server_args=("$@" --user=root --datadir="$work" --skip-log-bin --loose-innodb-buffer-pool-dump-at-shutdown=0)
  mariadb-install-db "${server_args[@]}" --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve >/dev/null
  # The accounts are made by a second bootstrap run of mariadbd (the statements on stdin, so no
  # password reaches a file or a command line) rather than by a temporary server the images
  # start and stop: the same statements, without waiting for a server to listen and shut down.
  # Bootstrap runs without the grant tables loaded: FLUSH PRIVILEGES loads them for ALTER USER.
  {
    echo 'SET @@SESSION.SQL_LOG_BIN=0;'
    echo 'FLUSH PRIVILEGES;'
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
  } | mariadbd "${server_args[@]}" --bootstrap --log-warnings=0
  sync -f "$work"
  touch "$complete_mark"
  sync -f "$work"
}

move_into_place() {
  local entry
  shopt -s dotglob nullglob
  for entry in "$work"/*; do
    case "${entry##*/}" in mysql|.complete) continue ;; esac
    mv -f "$entry" "$datadir/"
  done
  shopt -u dotglob nullglob
  mv "$work/mysql" "$datadir/mysql"
  rm -rf "$work"
}

if [ ! -d "$datadir/mysql" ]; then
  if [ -e "$complete_mark" ]; then
    echo 'entrypoint: finishing the move of an initialisation an earlier start completed'
  else
    initialise "$@"
  fi
  move_into_place
  echo 'entrypoint: initialisation done'
  if [ -n "${MYSQL_INIT_ONLY:-}" ]; then exit 0; fi
fi

exec mariadbd "$@" --user=root
