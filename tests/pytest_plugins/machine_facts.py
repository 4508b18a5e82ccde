"""pytest plugin for make pytest (-p machine_facts): this machine's facts gathered once per worker.

Every test inventory's hosts are this machine (the local connection), and most tests run a role's
preflight, whose first task gathers the facts it needs. The setup module then ran once per host
of every test: about half of a preflight test's CPU. Here it runs once per pytest worker, and every
playbook a test starts reads the result through the fact cache plugin
tests/cache_plugins/gpuops_machine_facts.py, as a run with a fact cache does (gathering is smart
in ansible.cfg). Each run keeps what it adds to the facts in its own memory.

A test marked ``gathered_facts`` runs with no facts at all at its start, as a first run without a
cache does: the tests of what a play does before any fact is gathered.
"""

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "gathered_facts: the playbook starts with no cached facts (no machine_facts seed)")


@pytest.fixture(scope="session")
def machine_facts_file(tmp_path_factory):
    """A JSON file with this machine's facts (the setup module, every subset), gathered once."""
    tree = tmp_path_factory.mktemp("machine-facts")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run(
        [str(bin_dir / "ansible"), "localhost", "-c", "local", "-i", "localhost,", "-m", "ansible.builtin.setup",
         "-e", "ansible_python_interpreter=" + sys.executable, "--tree", str(tree)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    result = tree / "localhost"
    assert proc.returncode == 0 and result.exists(), proc.stdout + proc.stderr
    facts = json.loads(result.read_text())["ansible_facts"]
    # Ansible falls back to its memory cache, with only a warning, when a cache plugin does not
    # load (its DOCUMENTATION must parse): the tests would pass, gathering again, unnoticed.
    plugin = REPO / "tests" / "cache_plugins" / "gpuops_machine_facts.py"
    doc = ast.literal_eval(next(node.value for node in ast.parse(plugin.read_text()).body
                                if isinstance(node, ast.Assign) and node.targets[0].id == "DOCUMENTATION"))
    assert yaml.safe_load(doc)["name"] == "gpuops_machine_facts", doc
    # What gathering records (smart gathering then skips a play's own).
    facts["_ansible_facts_gathered"] = True
    seed = tree / "facts.json"
    seed.write_text(json.dumps(facts))
    return seed


@pytest.fixture(autouse=True)
def _machine_facts(request, monkeypatch):
    if request.node.get_closest_marker("gathered_facts"):
        return
    seed = request.getfixturevalue("machine_facts_file")
    monkeypatch.setenv("GPUOPS_MACHINE_FACTS", str(seed))
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGINS", str(REPO / "tests" / "cache_plugins"))
    monkeypatch.setenv("ANSIBLE_CACHE_PLUGIN", "gpuops_machine_facts")
