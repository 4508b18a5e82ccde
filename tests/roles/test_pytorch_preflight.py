"""pytorch_env's preflight rejects bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, local_host, run_playbook

PLAYBOOK = REPO / "tests" / "roles" / "plan" / "pytorch_preflight.yml"


def run(tmp_path, host_vars):
    return run_playbook(tmp_path, PLAYBOOK, {"hosts": {"node": local_host(host_vars)}}, args=())


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
