"""The env_modules role's preflight (tags preflight, --check) refuses bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, run_on_compute

PLAYBOOK = REPO / "playbooks" / "env_modules.yml"


def run(tmp_path, host_vars):
    return run_on_compute(tmp_path, PLAYBOOK, host_vars)


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out
    assert "failed=0" in out


def test_site_paths_pass(tmp_path):
    rc, out = run(tmp_path, {"env_modules_paths": ["/apps/modulefiles", "/home/shared/modulefiles"],
                             "env_modules_dir": "/srv/modulefiles"})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"env_modules_dir": "opt/gpuops/modulefiles"},
                 "env_modules_dir must be an absolute path without blanks, colons, quotes, $, backquotes or "
                 "backslashes, not 'opt/gpuops/modulefiles'.", id="relative-dir"),
    pytest.param({"env_modules_dir": "/opt/gpuops/modulefiles/../x"},
                 "env_modules_dir must be a normalised absolute path below / (no trailing slash, . or ..)",
                 id="dir-with-dotdot"),
    pytest.param({"env_modules_paths": ["/apps/modulefiles", "shared/modulefiles"]},
                 "env_modules_paths: every entry must be an absolute path without blanks, colons, quotes, $, "
                 "backquotes or backslashes, not 'shared/modulefiles'.", id="relative-site-path"),
    pytest.param({"env_modules_paths": ["/apps/a:/apps/b"]},
                 "env_modules_paths: every entry must be an absolute path without blanks, colons",
                 id="colon-in-site-path"),
    pytest.param({"env_modules_paths": "/apps/modulefiles"}, "env_modules_paths", id="site-paths-not-a-list"),
    pytest.param({"env_modules_nccl_conf_path": "nccl.conf"}, "env_modules_nccl_conf_path must be an absolute path",
                 id="relative-nccl-conf"),
    pytest.param({"env_modules_task_prolog_path": "/opt/gpuops/modulefiles/task_prolog.sh"},
                 "env_modules_task_prolog_path ('/opt/gpuops/modulefiles/task_prolog.sh') must not be inside "
                 "env_modules_dir", id="task-prolog-in-the-tree"),
    pytest.param({"env_modules_cuda": "maybe"}, "env_modules_cuda", id="cuda-not-a-bool"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out
