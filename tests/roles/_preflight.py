"""Runs a playbook's preflight (or a plan playbook) against local hosts, for the tests beside this file."""

import os
import pathlib
import subprocess
import sys

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
PREFLIGHT = ("--tags", "preflight", "--check")


def local_host(host_vars, **extra):
    """A host reached with the local connection and this Python, with host_vars (and extra) set."""
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    host.update(extra)
    host.update(host_vars)
    return host


def run_playbook(tmp_path, playbook, inventory, args=PREFLIGHT):
    """(rc, output on one line) of ansible-playbook over the inventory dict (YAML shape, under all)."""
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump({"all": inventory}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run([str(bin_dir / "ansible-playbook"), "-i", str(inv), str(playbook)] + list(args),
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())


def run_on_compute(tmp_path, playbook, host_vars, args=PREFLIGHT):
    """run_playbook with one local host, in group slurm_compute, with host_vars."""
    return run_playbook(tmp_path, playbook, {"children": {"slurm_compute": {"hosts": {"node": local_host(host_vars)}}}},
                        args)
