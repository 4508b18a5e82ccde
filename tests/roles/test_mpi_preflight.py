"""The mpi role's preflight (tags preflight, --check) refuses bad settings with a message that names the fix."""

import pytest

from _preflight import REPO, run_on_compute

PLAYBOOK = REPO / "playbooks" / "mpi.yml"


def run(tmp_path, host_vars):
    return run_on_compute(tmp_path, PLAYBOOK, host_vars)


def test_defaults_pass(tmp_path):
    rc, out = run(tmp_path, {})
    assert rc == 0, out
    assert "failed=0" in out


def test_extra_variables_pass(tmp_path):
    rc, out = run(tmp_path, {"mpi_env_extra": {"UCX_LOG_LEVEL": "warn", "OMPI_MCA_btl": "^openib"}})
    assert rc == 0, out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"mpi_packages_extra": ["libopenmpi-dev", "ucx utils; rm -rf /"]},
                 'mpi_packages_extra must be package names, not ["libopenmpi-dev", "ucx utils; rm -rf /"]',
                 id="package-name-with-spaces"),
    pytest.param({"mpi_packages_extra": [["libopenmpi-dev"]]}, "mpi_packages_extra", id="package-not-a-string"),
    pytest.param({"mpi_install_mpi4py": "maybe"}, "mpi_install_mpi4py", id="mpi4py-not-a-bool"),
    pytest.param({"mpi_modulefiles_dir": "opt/modulefiles"},
                 'mpi_modulefiles_dir must be an absolute path, not "opt/modulefiles"', id="relative-modulefiles-dir"),
    pytest.param({"mpi_env_extra": {"UCX-TLS": "tcp"}},
                 "mpi_env_extra must map variable names (letters, digits, _) to values of letters, digits and _.,:/=+^@%- only", id="name-with-dash"),
    pytest.param({"mpi_env_extra": {"UCX_TLS": "tcp; reboot `x`"}},
                 "mpi_env_extra must map variable names (letters, digits, _) to values of letters, digits and _.,:/=+^@%- only", id="value-with-backquote"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run(tmp_path, host_vars)
    assert rc != 0, out
    assert expected in out, out
