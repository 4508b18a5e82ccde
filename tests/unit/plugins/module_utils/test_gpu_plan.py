# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nvidia_driver and cuda plans (module_utils/_gpu_plan.py); the per-OS rendering is tests/roles/test_gpu_stack_plan.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils._gpu_plan import cuda_plan, driver_branch, driver_plan

DEBIAN = {
    "source": "distro", "branch": "535", "version": "", "pkg_manager": "apt", "kernel_modules": "proprietary",
    "packages": [], "source_packages": {"proprietary": ["nvidia-kernel-dkms", "nvidia-smi"], "open": ["nvidia-open-kernel-dkms"]},
    "unversioned": ["nvidia-persistenced"], "hold_extra": {}, "fabricmanager": "auto", "fabric_manager_needed": False,
    "fabricmanager_packages": [], "source_fabricmanager": [], "persistenced": True,
}
UBUNTU = dict(DEBIAN, source="nvidia", branch="570", source_packages={"proprietary": ["cuda-drivers-570"]},
              unversioned=[], hold_extra={"proprietary": ["nvidia-driver-570"]},
              source_fabricmanager=["nvidia-fabricmanager-570"], fabric_manager_needed=True,
              repo_base_url="http://mirror.lab/nvidia/", repo_dist="ubuntu2404", repo_arch="sbsa", repo_key_url="",
              repo_key_id="3bf863cc", apt_key_file="/etc/apt/keyrings/k.asc")


@pytest.mark.parametrize("args, branch", [(("575", "535.1.2", "550"), "575"), (("", "535.261.03", "550"), "535"),
                                          (("", "", "550"), "550"), ((None, None, None), "")])
def test_driver_branch(args, branch):
    assert driver_branch(*args) == branch


def test_debian_distro_plan():
    plan = driver_plan(DEBIAN)
    assert (plan["version_pattern"], plan["version_regex"]) == ("535.*", r"^([0-9]+:)?535\.")
    assert plan["hold"] == ["nvidia-kernel-dkms", "nvidia-smi", "nvidia-persistenced"]
    assert plan["repo"] == {} and plan["services"] == ["nvidia-persistenced"] and not plan["fabricmanager"]


def test_exact_version_and_override():
    plan = driver_plan(dict(DEBIAN, version="535.261.03", packages=["my-driver"]))
    assert (plan["version_pattern"], plan["version_regex"]) == ("535.261.03-*", r"^([0-9]+:)?535\.261\.03-")
    assert plan["versioned"] == ["my-driver"] and plan["unversioned"] == []


def test_nvidia_repository_mirror_and_fabric_manager():
    plan = driver_plan(UBUNTU)
    assert plan["repo"] == {
        "url": "http://mirror.lab/nvidia/ubuntu2404/sbsa", "key_url": "http://mirror.lab/nvidia/ubuntu2404/sbsa/3bf863cc.pub",
        "apt_key_file": "/etc/apt/keyrings/k.asc",
        "apt_source": "deb [signed-by=/etc/apt/keyrings/k.asc] http://mirror.lab/nvidia/ubuntu2404/sbsa/ /",
        "apt_pin_origin": "mirror.lab", "dnf_name": "cuda-ubuntu2404-sbsa"}
    assert plan["hold"] == ["cuda-drivers-570", "nvidia-driver-570", "nvidia-fabricmanager-570"]
    assert plan["services"] == ["nvidia-persistenced", "nvidia-fabricmanager"]
    assert driver_plan(dict(UBUNTU, fabricmanager="disabled"))["fabricmanager_packages"] == []


def test_cuda_plans():
    distro = cuda_plan({"source": "distro", "pkg_manager": "apt", "versions": [], "distro_versions": ["11.8"],
                        "distro_package": "nvidia-cuda-toolkit", "distro_prefix": "/usr/lib/nvidia-cuda-toolkit"})
    assert distro["default"] == "11.8"
    assert distro["toolkits"] == [{"version": "11.8", "package": "nvidia-cuda-toolkit", "pattern": "11.8.*",
                                   "regex": r"^([0-9]+:)?11\.8[.]", "prefix": "/usr/lib/nvidia-cuda-toolkit", "priority": 1108}]
    nvidia = cuda_plan({"source": "nvidia", "pkg_manager": "dnf", "versions": ["12.10", "12.4"], "default_version": "",
                        "nvidia_default_versions": ["12.8"]})
    assert nvidia["default"] == "12.10"
    assert [t["package"] for t in nvidia["toolkits"]] == ["cuda-toolkit-12-10", "cuda-toolkit-12-4"]
    assert [t["priority"] for t in nvidia["toolkits"]] == [1210, 1204]
    assert cuda_plan({"source": "nvidia", "versions": ["abc"]})["toolkits"][0]["priority"] == 0
