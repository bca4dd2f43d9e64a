# Every target creates the virtual environment on first use; `make help` lists them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What each target installs: ingest and eval the package alone; tests, lint and typecheck the
# dev extra and the optional ones the tests cover; the benchmarks the bench extra too.
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench
DEV_EXTRAS := dev,browser,peers,tokens,watch,dense
PIP := $(BIN)/pip install --disable-pip-version-check
CORPUS ?= corpus
SRC := policy_assistant tests bench scripts

.PHONY: help install install-dev install-ray model system ingest eval baseline test test-slow test-all lint typecheck check bench bench-sweep bench-scale corpus golden clean

help:
	@echo "make ingest    set up .venv, ingest the bundled corpus and print the evaluation"
	@echo "make test      set up .venv with the dev extra and the model, run the tests but the slow ones (< 3 min)"
	@echo "make test-slow the slow tests alone: kill, watch, fuzz and large ones"
	@echo "make test-all  every test, slow ones included"
	@echo "make system    install the Debian packages for OCR (tesseract), as root"
	@echo "make eval      the CI gate: evaluate and compare with questions/baseline.json"
	@echo "make baseline  write questions/baseline.json from the current code (review its diff)"
	@echo "make check     lint, format check, type check and every test (what CI runs)"
	@echo "make bench     run the benchmarks in bench/, figures recorded (installs the bench extra)"
	@echo "make bench-sweep  time 8 eval variants x 3 budgets, 500 questions, 250k words (< 10 s), recorded"
	@echo "make bench-scale  ours against tantivy at 10k and 100k chunks (SIZES=1000000 for 1M)"
	@echo "make corpus    rebuild the bundled PDFs from corpus-src/"
	@echo "make golden    regenerate the golden files in tests/golden/"
	@echo "make install-ray  add the ray extra (ingest --engine ray, its tests)"
	@echo "make model     fetch the pinned all-MiniLM-L6-v2 into build/models/ (make test does it)"
	@echo "make clean     remove .venv, build/ and caches"

$(STAMP): pyproject.toml
	@echo "== creating the virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)
	@echo "== installing policy-assistant and what ingest and eval need"
	$(PIP) -e .
	@# An editable install leaves our modules uncompiled, and with PYTHONDONTWRITEBYTECODE set
	@# every command would compile them again (0.1 s of each start); an installed wheel has them.
	$(BIN)/python -m compileall -q policy_assistant
	@touch $(STAMP)

system:
	@bash scripts/system-packages.sh

$(DEV_STAMP): $(STAMP)
	@echo "== installing the extras the tests cover: $(DEV_EXTRAS) (a few minutes the first time)"
	$(PIP) -e '.[$(DEV_EXTRAS)]'
	@touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

install-ray: $(DEV_STAMP)
	$(PIP) -e '.[$(DEV_EXTRAS),ray]'

ingest: $(STAMP) system
	@echo "== ingesting $(CORPUS) into build/index"
	$(BIN)/policy-assistant ingest $(CORPUS)
	@echo "== evaluating the bundled question set"
	$(BIN)/policy-assistant eval --corpus $(CORPUS)

eval: $(STAMP)
	$(BIN)/policy-assistant eval --baseline questions/baseline.json

baseline: $(STAMP)
	$(BIN)/policy-assistant eval --summary --out questions/baseline.json

# The tests that embed need the pinned model: `model` fetches it once (two wheels, about 100 MB,
# each file checked by its sha256), then finds it there in a fraction of a second.
test: $(DEV_STAMP) model
	$(BIN)/pytest -m "not slow"

test-slow: $(DEV_STAMP)
	$(BIN)/pytest -m slow

test-all: $(DEV_STAMP) model
	$(BIN)/pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check $(SRC)
	$(BIN)/ruff format --check $(SRC)

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

check: lint typecheck test-all

$(BENCH_STAMP): $(DEV_STAMP)
	$(PIP) -e '.[$(DEV_EXTRAS),bench]'
	@touch $(BENCH_STAMP)

bench-scale: $(BENCH_STAMP)
	$(BIN)/python bench/bench_scale.py --sizes $(or $(SIZES),10000,100000)

# These runs record their figures: each script that has a section in bench/RESULTS.md gets --write
# (run a script by hand without it to try it out, at any size, leaving RESULTS.md as it is).
bench: $(BENCH_STAMP)
	@for script in bench/bench_*.py; do echo "== $$script"; \
		write=$$(grep -q 'write_section(' $$script && echo --write); \
		$(BIN)/python $$script $$write || exit 1; done

bench-sweep: $(DEV_STAMP)
	$(BIN)/python bench/bench_sweep.py --write

corpus: $(STAMP)
	$(BIN)/python scripts/build_corpus.py

model: $(STAMP)
	$(BIN)/python scripts/fetch_model.py

golden: $(DEV_STAMP)
	$(BIN)/python scripts/update_golden.py

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
