#!/usr/bin/env bash
# Make sure Redis answers on localhost for the tests, and PostgreSQL if the machine has one;
# start them if we can. Without a PostgreSQL on 5432, `make test` runs the embedded one.
set -u
PGPORT=${PGPORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 30); do port_open "$1" && return 0; sleep 0.5; done
  return 1
}

if [ -n "${DATABASE_URL:-}" ]; then
  echo "services: using DATABASE_URL for PostgreSQL"
elif ! port_open "$PGPORT"; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "PostgreSQL is not answering on 127.0.0.1:$PGPORT; trying to start the machine's..."
    for version in /etc/postgresql/*; do
      pg_ctlcluster --skip-systemctl-redirect "$(basename "$version")" main start 2>/dev/null || true
    done
    wait_port "$PGPORT" || true
  fi
  if ! port_open "$PGPORT"; then
    echo "services: no PostgreSQL on 127.0.0.1:$PGPORT: the tests use the embedded one (.data/postgres)"
  fi
fi

if [ -n "${CELERY_BROKER_URL:-}" ]; then
  echo "services: using CELERY_BROKER_URL for Redis"
elif ! port_open "$REDIS_PORT"; then
  echo "Redis is not answering on 127.0.0.1:$REDIS_PORT; trying to start it..."
  if command -v redis-server >/dev/null; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no >/dev/null 2>&1 || true
  fi
  if ! wait_port "$REDIS_PORT"; then
    echo "ERROR: Redis is not answering on 127.0.0.1:$REDIS_PORT. Start it (e.g. 'redis-server --daemonize yes'), or point CELERY_BROKER_URL at one." >&2
    exit 1
  fi
fi
echo "services: Redis is reachable"
