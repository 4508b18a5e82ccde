"""pytorch_env's preflight rejects bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, local_host, run_playbook

PLAYBOOK = REPO / "tests" / "roles" / "plan" / "pytorch_preflight.yml"


def run(tmp_path, host_vars):
    return run_playbook(tmp_path, PLAYBOOK, {"hosts": {"node": local_host(host_vars)}}, args=())


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars, message", [
    pytest.param({"pytorch_env_offline": True},
                 "pytorch_env: pytorch_env_offline is true with pytorch_env_find_links [] and "
                 'pytorch_env_index_url "". Fix: pytorch_env_offline needs pytorch_env_find_links (a wheelhouse on '
                 "the hosts) or pytorch_env_index_url (a local index).", id="offline-without-wheelhouse"),
    pytest.param({"pytorch_env_build": "cuda12"},
                 'pytorch_env: pytorch_env_build is "cuda12". Fix: pytorch_env_build is cpu or a CUDA flavour such as '
                 "cu124.", id="bad-build"),
    pytest.param({"pytorch_env_version": "latest"},
                 'pytorch_env: pytorch_env_version is "latest". Fix: pytorch_env_version is a release such as 2.13.0.',
                 id="unpinned-version"),
    pytest.param({"pytorch_env_root": "opt/pytorch"},
                 'pytorch_env: pytorch_env_root is "opt/pytorch". Fix: pytorch_env_root is an absolute path.',
                 id="relative-root"),
    pytest.param({"pytorch_env_find_links": "/opt/wheelhouse"},
                 'pytorch_env: pytorch_env_find_links is "/opt/wheelhouse". Fix: pytorch_env_find_links is a list of '
                 "strings.",
                 id="find-links-not-a-list"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, message):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    # The default callback prints the message as JSON: its quotes escaped.
    assert message in out.replace('\\"', '"'), out


def test_every_bad_setting_is_named_at_once(tmp_path):
    rc, out = run(tmp_path, {"pytorch_env_build": "cuda12", "pytorch_env_version": "latest"})
    assert rc != 0, out
    flat = out.replace('\\"', '"')
    assert 'pytorch_env_build is "cuda12"' in flat and 'pytorch_env_version is "latest"' in flat, out
