# The two commands the README documents: `make run` and `make test`.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run demo test lint services browser bench worker clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

## run: install, migrate, load the built-in codebooks and the demo, serve on 127.0.0.1:8000
run: demo
	@echo "Serving on http://$(HOST):$(PORT)/  (Ctrl-C stops)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_codebook --builtin all
	$(BIN)/python manage.py load_demo --url http://$(HOST):$(PORT)/

## test: lint, migration check, then every test against PostgreSQL, Redis and Chromium
test: install services browser lint
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m pytest

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

worker: install
	$(BIN)/celery -A config worker --loglevel=info

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .ruff_cache
