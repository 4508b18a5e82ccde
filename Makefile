# gpuops.cluster: the two commands are `make lab` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# The modules Ansible packs for the hosts (AnsiballZ), kept from one run to the
# next under a digest of every module source (gpuops.cluster.preload's
# module_cache; docs/performance.md): every make target's playbook runs share it.
export GPUOPS_PRELOAD_MODULE_CACHE ?= $(CURDIR)/.build/ansiballz-cache
MOLECULE_SCENARIOS ?= site slurm_trixie gpu_stack health safety maintenance topology day2 ha

.PHONY: help venv host images bare-images pkgs-images lab-image lab-prepare molecule-lanes wheelhouse slurm-packages lab lab-down validate lint sanity units pytest rules molecule molecule-mitogen dist dist-test test quick cluster suite cluster-down bench fleet image-join scale scale-smoke clean

help:
	@echo "make lab       start the container lab and converge it (site.yml -i inventory/lab)"
	@echo "make lab-down  remove the lab"
	@echo "make validate  validate the running lab (playbooks/validate.yml), report in validate-report/"
	@echo "make test      lint, ansible-test sanity+units, pytest, alert rule tests, dist test, every Molecule scenario;"
	@echo "               ends with a table: each part's time, each Molecule suite's checks and time"
	@echo "make quick     the inner loop: lint, units and pytest (no containers)"
	@echo "make cluster SCENARIO=site    build a scenario's cluster and keep it (molecule converge)"
	@echo "make suite SCENARIO=site SUITE=molecule/shared/verify_usage.yml"
	@echo "               one verify suite against that kept cluster, without rebuilding it"
	@echo "make cluster-down SCENARIO=site   remove it"
	@echo "make rules     the alert rules through promtool check rules and promtool test rules (tests/promtool)"
	@echo "make dist      build the collection tarball into dist/"
	@echo "make bench     converge / re-run / --check of the Slurm part and site.yml against the shell-loop floor"
	@echo "make fleet     site.yml first / re-run / --check / add_node over 4-32 nodes, projected to 1,000 (issue 44)"
	@echo "make image-join  N nodes booted from a node image joining at once: docker run to all idle (issue 48)"
	@echo "make molecule-mitogen  every Molecule scenario under Mitogen's strategy"
	@echo "make scale     the Slurm model and its files for 8 to 1,024 nodes (cached facts, no containers)"
	@echo "make scale-smoke  the same for 8 and 64 nodes (make test's scale part)"

# Python tools, pinned in requirements-dev.txt; rebuilt when it changes.
$(VENV)/.stamp: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

# The checkout, seen as the installed collection gpuops.cluster (ansible.cfg).
.build/collections/ansible_collections/gpuops/cluster:
	mkdir -p .build/collections/ansible_collections/gpuops
	ln -sfn ../../../.. $@

venv: $(VENV)/.stamp .build/collections/ansible_collections/gpuops/cluster

# Docker daemon, apt cache, base images: each step is a no-op when done.
host:
	tools/ensure-docker.sh
	tools/apt-cache.sh

# Every image make test uses: the bare images, the package layers, the CUDA
# layer (tools/build-images.sh; each rebuilt only when its recipe changes).
images: venv host
	tools/build-images.sh

# The bare images alone (what the Slurm builds of make test start from).
bare-images: venv host
	tools/build-images.sh --bare

# The bare images and the package layers (what the flows start from).
pkgs-images: venv host
	tools/build-images.sh --pkgs

# The lab runs on the bare Debian 12 image only: make lab builds nothing else.
lab-image: host
	tools/build-images.sh --bare bookworm

# The Python tools (and then the wheelhouse) and the Docker side (daemon, apt
# cache, lab image) do not need each other: on a fresh machine they are made
# side by side (86 s one after the other, 46 s at once, measured 2026-12-02
# with Docker installed and pip's cache warm: docs/performance.md).
lab-prepare:
	$(MAKE) -j2 venv lab-image wheelhouse

lab: lab-prepare
	tools/lab.sh up
	# A fresh lab has no jobs to protect: every GPU node installs at once
	# (gpu_stack.yml's batches are for a cluster in service).
	$(BIN)/ansible-playbook site.yml -i inventory/lab -e gpuops_gpu_stack_serial=100%
	@echo
	docker exec lab-login sinfo
	@echo
	@echo "The lab is up. Users submit from the login node, lab-login:"
	@echo "  docker exec -it lab-login srun -N2 hostname"
	@echo "  docker exec -it lab-login srun --gres=gpu:1 env | grep CUDA_VISIBLE_DEVICES"
	@echo "  docker exec -it lab-login bash -c 'sbatch --wrap \"hostname; sleep 5\" && squeue'"
	@echo "  docker exec -it lab-login bash -c 'cd /shared && CKPT_DIR=/shared/ckpt sbatch -N 2 /opt/gpuops/examples/ddp/ddp.sbatch'"
	@echo "  docker exec -it lab-login srun --mpi=pmix -N2 -n4 python3 -c 'from mpi4py import MPI; c = MPI.COMM_WORLD; print(c.rank, c.allreduce(c.rank))'"
	@echo "  docker exec -it lab-login bash -lc 'module avail; sacct'"
	@echo "  docker exec -it lab-login sinfo -R               # nodes the health check drained, and why"
	@echo "  docker exec -it lab-gpu01 gpuops-health show     # the node's last health check result"
	@echo "Check it: make validate (report in validate-report/). Remove it: make lab-down"

lab-down:
	tools/lab.sh down

# playbooks/validate.yml against the running lab; the report lands in validate-report/.
validate: venv
	$(BIN)/ansible-playbook playbooks/validate.yml -i inventory/lab

# Molecule installs a copy of this collection into ~/.ansible/collections;
# a stale copy there would shadow the checkout in ansible-lint's syntax check.
lint: venv
	$(BIN)/yamllint .
	rm -rf $(HOME)/.ansible/collections/ansible_collections/gpuops/cluster
	$(BIN)/ansible-lint

sanity: venv
	tools/ansible-test.sh sanity

units: venv
	tools/ansible-test.sh units

# Two workers (pytest-xdist): each test runs ansible-playbook in its own tmp_path.
# machine_facts (tests/pytest_plugins): this machine's facts gathered once per worker
# and read through a fact cache, instead of once per host of every test.
pytest: venv
	PYTHONPATH=tests/pytest_plugins $(BIN)/pytest -q -n 2 -p machine_facts tests/preflight tests/roles

# The alert rules (module_utils/monitoring/_alert_rules.py with the prometheus role's
# defaults) through promtool check rules and the unit tests in tests/promtool;
# promtool comes from Debian's prometheus package, unpacked into .build/promtool.
rules: venv
	tools/promtool.sh

dist: venv
	rm -rf dist && mkdir -p dist
	$(BIN)/ansible-galaxy collection build --force --output-path dist .

# Install the tarball into an empty folder and run a play that uses the
# roles by FQCN against containers: how other infra repos consume us.
dist-test: dist images
	tests/dist/run.sh

# torch 2.13.0 (CPU build), numpy and their dependencies as wheels for Python 3.11,
# for offline installs in the ddp scenario (pip finds the local CPU build
# of torch through the machine's pip settings).
TORCH_VERSION := 2.13.0
NUMPY_VERSION := 2.4.6
.build/wheelhouse/.stamp: $(VENV)/.stamp Makefile
	mkdir -p .build/wheelhouse
	$(BIN)/pip download --quiet --only-binary=:all: --python-version 3.11 \
	  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
	  -d .build/wheelhouse torch==$(TORCH_VERSION) numpy==$(NUMPY_VERSION)
	touch $@

wheelhouse: .build/wheelhouse/.stamp

# Slurm 26.05.3 built from ../shared/artifacts by the collection's own build
# tasks, for each Debian release a Molecule scenario installs it on, into the
# cache the scenarios read (tools/slurm-packages.sh; a no-op for a key the
# cache has). make test starts it beside the parts that do not need it.
slurm-packages: venv
	tools/slurm-packages.sh

# Two lanes side by side (tools/molecule-lanes.sh); MOLECULE_LANES=1 for one
# scenario at a time. Each scenario's log: .build/molecule-logs/.
molecule: venv images wheelhouse
	MOLECULE_SCENARIOS="$(MOLECULE_SCENARIOS)" tools/molecule-lanes.sh

# The lanes alone, for make test, which builds the images beside them: the
# flows start once the package layers exist, and the scenarios that need the
# CUDA layer or the wheelhouse (site, gpu_stack) wait for the images part
# (GPUOPS_IMAGES_RC).
molecule-lanes: venv
	MOLECULE_SCENARIOS="$(MOLECULE_SCENARIOS)" tools/molecule-lanes.sh

# The same scenarios under Mitogen's strategy (issue 18's check that the
# collection works with it); not part of `make test`.
molecule-mitogen: venv images wheelhouse
	MOLECULE_SCENARIOS="$(MOLECULE_SCENARIOS)" tools/molecule-mitogen.sh

# Each part timed, and the table at the end (tools/test.sh, tools/test-summary.py).
test:
	tools/test.sh

# The inner loop while developing: lint, units and pytest, no containers.
quick: venv
	TEST_PARTS="lint units pytest" tools/test.sh

# One scenario's cluster, built and kept (create, prepare, converge), then any
# of its verify suites against it, as often as needed.
SCENARIO ?= site
SUITE ?=
cluster: venv images wheelhouse
	molecule converge -s $(SCENARIO)

suite: venv
	tools/suite.sh $(SCENARIO) $(SUITE)

cluster-down: venv
	molecule destroy -s $(SCENARIO)

# Converge timings (bench/converge.py): BENCH_NODES="2 8", BENCH_PARTS="slurm site",
# BENCH_VARIANTS="docker" (add docker+mitogen ssh ssh+mitogen), BENCH_GALAXY_SLURM=<checkout>.
bench: venv images wheelhouse
	$(BIN)/python bench/converge.py
	$(BIN)/python bench/health_prolog.py
	$(BIN)/python bench/exporter_scrape.py

# FLEET_NODES="4 8 16 32", FLEET_VARIANTS="ssh" by default: site.yml's first
# converge, re-run, --check and add_node per N, the projection to 1,000 nodes
# (issue 44). Not part of make test.
fleet: venv images wheelhouse
	$(BIN)/python bench/fleet.py

# Nodes booted from a node image joining at once (IMAGE_JOIN_NODES, default
# 16): docker run to all idle in Slurm (issue 48, docs/node-images.md).
image-join: venv images wheelhouse
	$(BIN)/python bench/image_join.py

# SCALE_NODES="8 64 512 1024" by default; no containers (cached facts).
scale: venv
	bench/scale.sh

# make test's `scale` part: the bench at small sizes, so that a change that
# breaks the model's entry point or its grouping fails CI. Judged on the
# targets that do not depend on the machine's speed (every host renders one
# slurm.conf, at most 50 lines for nodes of one model with MemTotal spread);
# its files stay under .build.
SCALE_SMOKE_NODES ?= 8 64
scale-smoke: venv
	SCALE_NODES="$(SCALE_SMOKE_NODES)" SCALE_WORK=.build/scale-smoke SCALE_RESULTS=.build/scale-smoke/results \
	  bench/scale.sh

clean: lab-down
	rm -rf .build dist
