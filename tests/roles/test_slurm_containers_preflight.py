"""The slurm_containers role's preflight (tags preflight, --check) refuses bad sources and settings with the fix."""

import pytest

from _preflight import REPO, run_on_compute

PLAYBOOK = REPO / "playbooks" / "slurm_containers.yml"
ARTIFACTS = REPO.parent / "shared" / "artifacts"
GOOD = {
    "slurm_containers_enroot_src": str(ARTIFACTS / "enroot-4.1.2.tar.gz"),
    "slurm_containers_enroot_sha256": "817e8d551135e6f3fc311d1ee57b03fb4d30325acba732f8dea43069ca11f8d3",
    "slurm_containers_pyxis_src": str(ARTIFACTS / "pyxis-0.24.0.tar.gz"),
    "slurm_containers_pyxis_sha256": "063653ba39125ac29796cc6079701d1ec34dd4c5baf698efacc0f36bf3619681",
    "slurm_containers_min_free_gib": 1,
}


def test_good_settings_pass(tmp_path):
    rc, out = run_on_compute(tmp_path, PLAYBOOK, GOOD)
    assert rc == 0, out
    assert "failed=0" in out


@pytest.mark.parametrize("host_vars, expected", [
    pytest.param({"slurm_containers_enroot_sha256": "0" * 64},
                 "enroot: %s has SHA-256 817e8d551135e6f3fc311d1ee57b03fb4d30325acba732f8dea43069ca11f8d3, not "
                 "0000000000000000000000000000000000000000000000000000000000000000 (slurm_containers_enroot_sha256): the file "
                 "is not the one you meant, or the checksum is wrong" % (ARTIFACTS / "enroot-4.1.2.tar.gz"),
                 id="checksum-mismatch"),
    pytest.param({"slurm_containers_pyxis_src": "/nonexistent/pyxis-0.24.0.tar.gz"},
                 "pyxis: the source /nonexistent/pyxis-0.24.0.tar.gz does not exist on the Ansible controller: set "
                 "slurm_containers_pyxis_src to the tarball from your mirror", id="missing-tarball"),
    pytest.param({"slurm_containers_pyxis_sha256": ""},
                 "slurm_containers_pyxis_sha256: give the SHA-256 of the pyxis tarball", id="no-checksum"),
    pytest.param({"slurm_containers_local_path": "/run/enroot"},
                 "slurm_containers_local_path: '/run/enroot' must be an absolute path on local disk, not under /run",
                 id="run"),
    pytest.param({"slurm_containers_min_free_gib": 1000000},
                 "less than slurm_containers_min_free_gib (1000000)",
                 id="space"),
])
def test_bad_settings_are_refused(tmp_path, host_vars, expected):
    rc, out = run_on_compute(tmp_path, PLAYBOOK, dict(GOOD, **host_vars))
    assert rc != 0, out
    assert expected in out, out
