"""pytorch_env's preflight rejects bad settings with a message that names the fix."""

import os
import pathlib
import subprocess
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "tests" / "roles" / "plan" / "pytorch_preflight.yml"


def run(tmp_path, host_vars):
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    host.update(host_vars)
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump({"all": {"hosts": {"node": host}}}))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run([str(bin_dir / "ansible-playbook"), "-i", str(inv), str(PLAYBOOK)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars", [
    pytest.param({"pytorch_env_offline": True}, id="offline-without-wheelhouse"),
    pytest.param({"pytorch_env_build": "cuda12"}, id="bad-build"),
    pytest.param({"pytorch_env_version": "latest"}, id="unpinned-version"),
    pytest.param({"pytorch_env_root": "opt/pytorch"}, id="relative-root"),
    pytest.param({"pytorch_env_find_links": "/opt/wheelhouse"}, id="find-links-not-a-list"),
])
def test_bad_settings_are_refused(tmp_path, host_vars):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert "Fix: pytorch_env_version is a release such as 2.13.0; pytorch_env_build is cpu or a CUDA flavour such as cu124" in out, out
