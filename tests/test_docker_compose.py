"""docker-compose.yml runs the whole system: checked statically here (no Docker engine in
CI); the commands it runs are the ones docs/admin.md and the other tests exercise."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_postgres_redis_web_and_worker_each_with_a_health_check():
    services = compose()["services"]

    assert set(services) == {"postgres", "redis", "web", "worker"}
    for name, service in services.items():
        assert service["healthcheck"]["test"], name


def test_the_database_lives_in_a_volume():
    config = compose()

    assert "pgdata:/var/lib/postgresql/data" in config["services"]["postgres"]["volumes"]
    assert "pgdata" in config["volumes"]


def test_web_and_worker_get_the_database_broker_and_production_settings():
    services = compose()["services"]

    for name in ("web", "worker"):
        environment = services[name]["environment"]
        assert environment["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["CELERY_BROKER_URL"].startswith("redis://redis:6379")
        assert services[name]["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
    assert "gunicorn config.wsgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:3] == ["celery", "-A", "config"]
