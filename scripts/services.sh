#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on localhost for the tests; start them if we can.
set -u
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 30); do port_open "$1" && return 0; sleep 0.5; done
  return 1
}

if ! port_open "$PGPORT"; then
  echo "PostgreSQL is not answering on $PGHOST:$PGPORT; trying to start it..."
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    for version in /etc/postgresql/*; do
      pg_ctlcluster --skip-systemctl-redirect "$(basename "$version")" main start 2>/dev/null || true
    done
  fi
  if ! wait_port "$PGPORT"; then
    echo "ERROR: PostgreSQL is not running. Start it (e.g. 'docker compose up -d postgres' or 'sudo service postgresql start') so that postgres@$PGHOST:$PGPORT accepts connections, or set DATABASE_URL." >&2
    exit 1
  fi
fi

if ! port_open "$REDIS_PORT"; then
  echo "Redis is not answering on 127.0.0.1:$REDIS_PORT; trying to start it..."
  if command -v redis-server >/dev/null; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no >/dev/null 2>&1 || true
  fi
  if ! wait_port "$REDIS_PORT"; then
    echo "ERROR: Redis is not running. Start it (e.g. 'docker compose up -d redis' or 'redis-server --daemonize yes') on 127.0.0.1:$REDIS_PORT, or set CELERY_BROKER_URL." >&2
    exit 1
  fi
fi
echo "services: PostgreSQL on $PGHOST:$PGPORT and Redis on 127.0.0.1:$REDIS_PORT are up"
