# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""enroot and pyxis on a Slurm host (module_utils/slurm/_slurm_containers.py): paths, rebuild decision, input errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_containers import mount_of, plan, source_kind

GIB = 1024 ** 3
SETTINGS = {
    "enroot_src": "/srv/mirror/enroot-4.1.2.tar.gz", "enroot_sha256": "817e8d551135e6f3fc311d1ee57b03fb4d30325acba732f8dea43069ca11f8d3",
    "pyxis_src": "https://mirror.example.org/pyxis-0.24.0.tar.gz",
    "pyxis_sha256": "063653ba39125ac29796cc6079701d1ec34dd4c5baf698efacc0f36bf3619681", "pyxis_version": "0.24.0",
    "local_path": "/var/lib/enroot", "min_free_gib": 5, "pyxis_args": {"runtime_path": "/run/pyxis"},
    "pyxis_plugin": "/usr/local/lib/slurm/spank_pyxis.so",
}
MOUNTS = [{"mount": "/", "size_available": 50 * GIB}, {"mount": "/var", "size_available": 8 * GIB},
          {"mount": "/var/lib/enroot-old", "size_available": 900 * GIB}]
FACTS = {"mounts": MOUNTS, "slurm_version": "22.05.8-4+deb12u3", "libslurm_version": "22.05.8-4+deb12u3", "stamp": ""}


def test_a_fresh_host():
    result = plan(dict(SETTINGS, min_free_gib=5), FACTS)
    assert result["errors"] == []
    assert result["paths"] == {"runtime": "/var/lib/enroot/runtime", "cache": "/var/lib/enroot/cache",
                               "data": "/var/lib/enroot/data", "temp": "/var/lib/enroot/tmp"}
    assert (result["mount"], result["free_gib"]) == ("/var", 8.0)
    assert result["stamp"] == "pyxis 0.24.0 slurm 22.05.8" and result["rebuild_pyxis"] is True
    assert result["plugstack_line"] == "required /usr/local/lib/slurm/spank_pyxis.so runtime_path=/run/pyxis"


def test_pyxis_is_built_again_when_slurm_changes():
    built = dict(FACTS, stamp="pyxis 0.24.0 slurm 22.05.8\n")
    assert plan(dict(SETTINGS, min_free_gib=5), built)["rebuild_pyxis"] is False
    upgraded = dict(built, slurm_version="24.11.5-1", libslurm_version="24.11.5-1")
    assert plan(dict(SETTINGS, min_free_gib=5), upgraded)["rebuild_pyxis"] is True
    assert plan(dict(SETTINGS, min_free_gib=5, pyxis_version="0.25.0"), built)["rebuild_pyxis"] is True


@pytest.mark.parametrize("settings, facts, message", [
    ({"enroot_sha256": ""}, {},
     "slurm_containers_enroot_sha256: give the SHA-256 of the enroot tarball (64 hex digits, sha256sum of the file you "
     "mirrored); without it the source is not verified"),
    ({"pyxis_src": "pyxis-0.24.0.tar.gz"}, {},
     "slurm_containers_pyxis_src: 'pyxis-0.24.0.tar.gz' is neither an http(s)/file URL nor an absolute path on the "
     "Ansible controller: give the pyxis source tarball's URL on your mirror, or its path"),
    ({"local_path": "/run/enroot"}, {},
     "slurm_containers_local_path: '/run/enroot' must be an absolute path on local disk, not under /run (a small tmpfs: "
     "images fill it) or /tmp; for example /var/lib/enroot or a local /scratch"),
    ({"pyxis_args": {"runtime_path": "/run/pyxis", "sbatch": 1}}, {},
     "slurm_containers_pyxis_args: unknown pyxis option(s) sbatch: use runtime_path, execute_entrypoint, "
     "container_scope, sbatch_support, use_enroot_load, importer, container_image_save"),
    ({"min_free_gib": 20}, {},
     "slurm_containers_local_path /var/lib/enroot is on /var with 8.0 GiB free, less than slurm_containers_min_free_gib "
     "(20): container images and their unpacked root file systems go there; put it on a larger local disk or lower "
     "the minimum"),
    ({"min_free_gib": 5}, {"libslurm_version": "23.02.7-1"},
     "libslurm-dev 23.02.7-1 does not match the installed Slurm 22.05.8-4+deb12u3: pyxis must be built against the "
     "headers of the Slurm release that runs it; install libslurm-dev of the same version (the package sources that "
     "gave Slurm)"),
])
def test_input_errors(settings, facts, message):
    assert plan(dict(SETTINGS, **settings), dict(FACTS, **facts))["errors"] == [message]


def test_space_is_not_checked_where_the_file_system_is_not_known():
    assert plan(dict(SETTINGS, min_free_gib=20), dict(FACTS, check_space=False))["errors"] == []
    assert plan(dict(SETTINGS, min_free_gib=20), dict(FACTS, mounts=[]))["errors"] == []


def test_helpers():
    assert [source_kind(text) for text in ("https://m/x.tgz", "file:///srv/x.tgz", "/srv/x.tgz", "x.tgz", None)] == \
        ["url", "url", "path", None, None]
    assert mount_of("/var/lib/enroot", MOUNTS)["mount"] == "/var"
    assert mount_of("/var/lib/enroot-old/x", MOUNTS)["mount"] == "/var/lib/enroot-old"
    assert mount_of("/opt", MOUNTS)["mount"] == "/"
    assert mount_of("/opt", []) is None
    assert plan(dict(SETTINGS, min_free_gib=5, pyxis_args={"sbatch_support": True}), FACTS)["plugstack_line"] == \
        "required /usr/local/lib/slurm/spank_pyxis.so sbatch_support=1"


def _checked(name, exists, checksum, sha256):
    return {"item": {"name": name, "src": "/srv/%s.tar.gz" % name, "sha256": sha256},
            "stat": {"exists": exists, "checksum": checksum} if exists else {"exists": False}}


def test_source_errors():
    from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_containers import source_errors
    assert source_errors([_checked("enroot", True, "ab" * 32, "AB" * 32)]) == []
    assert source_errors([]) == [] and source_errors(None) == [] and source_errors([None, {"item": 1}]) == []
    assert source_errors([_checked("enroot", True, "ab" * 32, "cd" * 32), _checked("pyxis", False, None, "ef")]) == [
        "enroot: /srv/enroot.tar.gz has SHA-256 %s, not %s (slurm_containers_enroot_sha256): the file is not the one "
        "you meant, or the checksum is wrong" % ("ab" * 32, "cd" * 32),
        "pyxis: the source /srv/pyxis.tar.gz does not exist on the Ansible controller: set slurm_containers_pyxis_src "
        "to the tarball from your mirror"]


@pytest.mark.parametrize("setting, gpu_host, container, reason", [
    (True, True, False, ""),
    ("auto", True, False, ""),
    (False, True, False, "slurm_containers_nvidia_container is false"),
    ("False", False, True, "slurm_containers_nvidia_container is false"),
    (True, False, True, "no NVIDIA GPU found"),
    (True, True, True, "a container: no GPU to give a job"),
])
def test_nvidia_cli_skip(setting, gpu_host, container, reason):
    from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_containers import nvidia_cli_skip
    assert nvidia_cli_skip(setting, gpu_host, container) == reason
