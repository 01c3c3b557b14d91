# The two commands the README documents: `make run` and `make test`.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint services browser bench worker clean clean-db

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

## run: install, then (scripts/run.py) the embedded PostgreSQL unless DATABASE_URL is set, a
## worker on a folder queue unless CELERY_BROKER_URL is set, migrate, the built-in codebooks
## and the demo, and serve on 127.0.0.1:8000 until Ctrl-C, which stops all of it
run: install
	$(BIN)/python scripts/run.py --host $(HOST) --port $(PORT)

## test: lint, then every test (the migration check too) on PostgreSQL at 127.0.0.1:5432 when
## it answers (or DATABASE_URL), else on the embedded one; Redis and Chromium as well
test: install services browser lint
	$(BIN)/python -m config.embedded_db --unless-server 127.0.0.1:5432 $(BIN)/python -m pytest

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports

services:
	@scripts/services.sh

browser:
	@scripts/browser.sh

## bench: the benchmarks (figures printed; see bench/*.py for what each measures)
bench: install services
	$(BIN)/python bench/import_bench.py
	$(BIN)/python bench/label_load.py
	$(BIN)/python bench/agreement_bench.py
	$(BIN)/python bench/compare_bench.py
	$(BIN)/python bench/export_bench.py
	$(BIN)/python bench/label_import_bench.py
	$(BIN)/python bench/adjudication_bench.py
	$(BIN)/python bench/triage_bench.py

worker: install
	$(BIN)/celery -A config worker --loglevel=info

## clean: the virtual environment and caches; the data (.data/) stays
clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache

## clean-db: delete the embedded PostgreSQL's data and the folder queue (.data/): refused
## while a `make run` or `make test` uses them
clean-db: install
	$(BIN)/python -m config.embedded_db --delete
