# Everyday commands; `make help` lists them. Everything runs from ./.venv
# (bash packaging/install.sh makes it).

PYTHON ?= .venv/bin/python
# Extra pytest arguments, e.g. make test ARGS="tests/unit -x"
ARGS ?=
# The order to replay with test-random (printed as --randomly-seed=N by a shuffled run)
SEED ?=

.DEFAULT_GOAL := help
.PHONY: help test test-random lint types check

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-12s %s\n", $$1, $$2}'

test: ## Run the tests in file order, as CI does (ARGS="..." to narrow)
	$(PYTHON) -m pytest $(ARGS)

test-random: ## Run the tests in a shuffled order; SEED=N replays the order a run printed
	$(PYTHON) -m pytest -p randomly $(if $(SEED),--randomly-seed=$(SEED)) $(ARGS)

lint: ## ruff: lint and format check
	.venv/bin/ruff check . && .venv/bin/ruff format --check .

types: ## mypy over the package
	.venv/bin/mypy v2c_desktop

check: lint types test ## lint, types and the tests
