# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node image's settings and manifest (module_utils/site/_node_image.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site._node_image import (
    component_versions,
    manifest,
    package_versions,
    settings_errors,
)

DEFAULTS = {"name": "gpuops-node", "version": "1", "profile": "", "overlay_dir": "/etc/gpuops/node",
            "manifest_path": "/etc/gpuops/image/manifest.json", "install_dir": "/usr/local/lib/gpuops/node-join",
            "join_timeout_s": 120, "profiles": {}}

# dpkg-query -W -f='${Package}\t${Version}\t${db:Status-Abbrev}\n' on a Debian 12 compute image (excerpt).
DPKG = (
    "munge\t0.5.15-2\tii \n"
    "slurmd\t22.05.8-4+deb12u3\tii \n"
    "libpmix2:amd64\t4.2.2-1+deb12u1\tii \n"
    "nvidia-driver\t535.247.01-1~deb12u1\tii \n"
    "nvidia-cuda-toolkit\t11.8.89~11.8.0-5~deb12u1\tii \n"
    "openmpi-bin\t4.1.4-3+b1\tii \n"
    "slurmctld\t22.05.8-4+deb12u3\trc \n"
    "not a line\n"
)


def test_the_defaults_pass():
    assert settings_errors(DEFAULTS) == []
    assert settings_errors(dict(DEFAULTS, version=2)) == []


@pytest.mark.parametrize("key, value, words", [
    ("name", "gpu node", "node_image_name is"),
    ("version", "", "node_image_version is"),
    ("overlay_dir", "etc/gpuops", "node_image_overlay_dir is"),
    ("manifest_path", "/a b", "node_image_manifest_path is"),
    ("join_timeout_s", 5, "node_image_join_timeout_s is 5"),
    ("join_timeout_s", True, "node_image_join_timeout_s is"),
    ("profile", "h100", "node_image_profile is 'h100', which slurm_node_profiles does not hold (it has none)"),
    ("profiles", ["h100"], "slurm_node_profiles is"),
])
def test_each_wrong_setting_is_named(key, value, words):
    errors = settings_errors(dict(DEFAULTS, **{key: value}))
    assert len(errors) == 1 and errors[0].startswith(words), errors


def test_a_profile_the_profiles_hold_passes():
    good = {"cpus": 2, "sockets": 1, "cores_per_socket": 2, "threads_per_core": 1, "real_memory": 4096}
    assert settings_errors(dict(DEFAULTS, profile="h100", profiles={"h100": good, "a100": good})) == []
    assert any("it has a100, h100" in error
               for error in settings_errors(dict(DEFAULTS, profile="b200", profiles={"h100": {}, "a100": {}})))


def test_a_wrong_profile_is_named_by_the_models_rule():
    errors = settings_errors(dict(DEFAULTS, profiles={"h100": {"cpus": 2}}))
    assert errors and all("slurm_node_profiles" in error for error in errors)


def test_garbage_settings_do_not_raise():
    assert settings_errors(None) == ["the node_image settings must be a mapping, not None"]
    assert len(settings_errors({})) == 6


def test_installed_packages_only():
    versions = package_versions(DPKG)
    assert versions["slurmd"] == "22.05.8-4+deb12u3"
    assert versions["libpmix2"] == "4.2.2-1+deb12u1"
    assert "slurmctld" not in versions
    assert package_versions(None) == {} and package_versions(7) == {}


def test_components_from_debian_and_nvidia_names():
    found = component_versions(package_versions(DPKG))
    assert found == {"slurm": "22.05.8-4+deb12u3", "munge": "0.5.15-2", "pmix": "4.2.2-1+deb12u1",
                     "driver": "535.247.01-1~deb12u1", "cuda": "11.8.89~11.8.0-5~deb12u1", "openmpi": "4.1.4-3+b1",
                     "enroot": None}
    nvidia = component_versions({"cuda-toolkit-12-4": "12.4.1-1", "cuda-toolkit-12-8": "12.8.0-1",
                                 "slurm-smd-slurmd": "26.05.3-1"})
    assert nvidia["cuda"] == "12.8.0-1" and nvidia["slurm"] == "26.05.3-1"


def test_the_manifest_records_what_the_image_holds():
    profiles = {"rtx2070x2": {"cpus": 2, "sockets": 1, "cores_per_socket": 2, "threads_per_core": 1, "real_memory": 4096,
                              "gres": [{"type": "nvidia_geforce_rtx_2070", "count": 2, "file": "/dev/nvidia[0-1]"}]}}
    result = manifest(DPKG, {"name": "gpuops-node", "version": 3, "profile": "rtx2070x2", "profiles": profiles,
                             "collection": {"collection_info": {"namespace": "gpuops", "name": "cluster",
                                                                "version": "0.7.0"}},
                             "os": "Debian 12.12", "slurm_install_from": "distribution",
                             "built": "2026-11-30T21:00:00Z"})
    assert result["version"] == "3"
    assert result["collection"] == {"name": "gpuops.cluster", "version": "0.7.0"}
    assert result["components"]["slurm"] == "22.05.8-4+deb12u3"
    assert result["profile"] == "rtx2070x2"
    assert result["profiles"]["rtx2070x2"]["gres_value"] == "gpu:nvidia_geforce_rtx_2070:2"
    assert result["profiles"]["rtx2070x2"]["gpu_count"] == 2
    assert list(result["packages"]) == sorted(result["packages"])
    galaxy = manifest("", {"collection": {"namespace": "gpuops", "name": "cluster", "version": "0.7.0"}})
    assert galaxy["collection"]["version"] == "0.7.0" and galaxy["profile"] is None and galaxy["packages"] == {}
    assert manifest(None, None)["collection"] == {}
