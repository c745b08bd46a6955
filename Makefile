# Every target uses the project's own virtual environment in .venv, created on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-vm install golden clean

run: $(STAMP)
	$(BIN)/treasure run input/ output/

# The tests need Debian's chromium (the browser tests, never a downloaded browser build),
# bubblewrap (the agent sandbox), g++ (the C++ example agent), rustc and cargo (the Rust groups' agents,
# tests/grading/test_rust_agent.py): installed when missing.
SYSTEM_TOOLS := chromium:chromium bwrap:bubblewrap g++:g++ node:nodejs javac:default-jdk-headless rustc:rustc cargo:cargo

# The suite on every supported Python the machine has, through nox (noxfile.py): the whole
# suite in .venv, then in a fresh environment per other version (a missing one is reported in
# one line and skipped), then the process tests without fork and SIGALRM.
test: $(STAMP)
	@missing=""; for pair in $(SYSTEM_TOOLS); do command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; fi
	$(BIN)/ruff check
	$(BIN)/python -m mypy
	@$(BIN)/python -c 'import nox' 2>/dev/null || $(BIN)/python -m pip install --quiet 'nox>=2024.4'
	$(BIN)/nox
	@$(MAKE) --no-print-directory test-vm

# The per-game memory group on cgroup v2, against a real memory controller: this machine's
# cgroup2 mount may offer none (where v1 holds memory), so a virtual machine that mounts cgroup2
# alone (tests/vm/run_in_vm.py, under qemu's software emulation: about 10 minutes) runs
# tests/vm/test_cgroup_v2_memory.py, and fails if a test fails or is skipped there. It needs
# qemu, a kernel of 5.19 or later with its modules, a static busybox and mkfs.ext4 (the Debian
# packages missing are installed, without their recommended ones), and virtme-ng, pinned, in a
# venv of its own (.venv-vm), never in .venv.
VNG_VERSION := 1.42
VM_VENV     := .venv-vm

test-vm: $(STAMP) $(VM_VENV)/.installed
	@missing=$$($(BIN)/python tests/vm/run_in_vm.py --missing) || exit 1; \
	if [ -n "$$missing" ]; then echo "test-vm: installing $$missing"; \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; } \
	  || { echo "Error: the VM step: could not install $$missing" >&2; exit 1; }; fi
	$(BIN)/python tests/vm/run_in_vm.py --ci --vng $(VM_VENV)/bin/vng

$(VM_VENV)/.installed: Makefile
	rm -rf $(VM_VENV)
	$(PYTHON) -m venv $(VM_VENV)
	@echo "test-vm: installing virtme-ng $(VNG_VERSION) in $(VM_VENV)"
	@$(VM_VENV)/bin/python -m pip install --quiet 'virtme-ng==$(VNG_VERSION)' \
	  || { echo "Error: the VM step: could not install virtme-ng $(VNG_VERSION) in $(VM_VENV)" >&2; rm -rf $(VM_VENV); exit 1; }
	touch $@

install: $(STAMP)

# Reinstall only when the package metadata or a compiled module's source changes
# (the editable install builds the optional compiled modules, src/treasure_cli/*/_*.c, in place,
# if a C compiler is at hand). The sources are byte-compiled once here: where
# PYTHONDONTWRITEBYTECODE is set (as in some CI images) Python never caches them itself,
# and every start would compile them again (~40 ms of `treasure bench`'s start-up).
$(STAMP): pyproject.toml setup.py $(wildcard src/treasure_cli/_*.h src/treasure_cli/*/_*.c src/treasure_cli/*/_*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,gym,dask]'
	$(BIN)/python -m compileall -q src
	touch $(STAMP)

clean:
	rm -rf $(VENV) $(VM_VENV) .nox output build dist src/*.egg-info .pytest_cache .hypothesis .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find src -name '*.so' -delete

# Rewrite the golden logs and replay frames on purpose (after a deliberate change of behaviour).
golden: $(STAMP)
	$(BIN)/treasure run input/ tests/golden/
	TREASURE_UPDATE_GOLDEN=1 $(BIN)/python -m pytest -q tests/view/test_steps.py
