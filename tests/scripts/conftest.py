from tests.fakegithub.fixtures import fake_github  # noqa: F401
