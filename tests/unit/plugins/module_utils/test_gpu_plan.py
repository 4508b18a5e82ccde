# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nvidia_driver and cuda plans (module_utils/gpu/_gpu_plan.py); the per-OS rendering is tests/roles/test_gpu_stack_plan.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.common._file_state import content_checksum
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_plan import (
    GpuPlanError, cuda_plan, cuda_settings_errors, driver_branch, driver_failures, driver_plan, driver_settings_errors,
    driver_todo, hardware_state)

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


def test_install_lists():
    plan = driver_plan(dict(UBUNTU, version="570.86.15", hold_extra={}))
    assert plan["install"]["apt"] == ["cuda-drivers-570=570.86.15-*", "nvidia-fabricmanager-570"]
    assert plan["install"]["dnf"] == ["cuda-drivers-570-570.86.15", "nvidia-fabricmanager-570",
                                      "python3-dnf-plugin-versionlock"]
    stream = driver_plan(dict(DEBIAN, packages=["@nvidia-driver:570-dkms", "kmod-extra"], version=""))
    assert stream["install"]["dnf"] == ["@nvidia-driver:570-dkms", "kmod-extra", "python3-dnf-plugin-versionlock"]
    assert stream["install"]["apt"] == ["@nvidia-driver:570-dkms=535.*", "kmod-extra=535.*"]
    assert driver_plan(DEBIAN)["install"]["apt"] == ["nvidia-kernel-dkms=535.*", "nvidia-smi=535.*",
                                                     "nvidia-persistenced"]


# --- the preflight checks --------------------------------------------------------------------------------------

DRIVER_CHECKS = dict(DEBIAN, distribution="Debian", distribution_major_version="12", distro_default_branch="535",
                     host="node", nvswitches=0, nvlink_all_to_all=False, reboot=True, reboot_with_jobs=False,
                     reboot_timeout=1800)
UBUNTU_CHECKS = dict(UBUNTU, distribution="Ubuntu", distribution_major_version="24", distro_default_branch="",
                     host="node", nvswitches=4, nvlink_all_to_all=True, reboot=False, reboot_with_jobs=False,
                     reboot_timeout="600")


@pytest.mark.parametrize("settings", [DRIVER_CHECKS, UBUNTU_CHECKS, dict(DRIVER_CHECKS, version="535.261.03"),
                                      dict(UBUNTU_CHECKS, version="570.86", kernel_modules="open"),
                                      dict(DRIVER_CHECKS, fabricmanager="enabled", fabricmanager_packages=["fm"]),
                                      dict(DRIVER_CHECKS, branch=535, reboot_timeout=1.5)],
                         ids=["debian-distro", "ubuntu-nvidia", "exact-version", "short-version", "fm-packages",
                              "numbers"])
def test_good_driver_settings(settings):
    assert driver_settings_errors(settings) == []


@pytest.mark.parametrize("changes, message", [
    pytest.param({"source": "nvdia"}, 'nvidia_driver_source "nvdia" (on Debian): nvidia_driver_source is distro '
                 "(Debian only) or nvidia.", id="source"),
    pytest.param({"distribution": "Ubuntu"}, 'nvidia_driver_source "distro" (on Ubuntu): nvidia_driver_source is '
                 "distro (Debian only) or nvidia.", id="distro-off-debian"),
    pytest.param({"branch": "550"}, "nvidia_driver_branch 550: Debian 12's non-free archive has only the 535 branch. "
                 "Leave nvidia_driver_branch empty, or set nvidia_driver_source: nvidia to install other branches "
                 "from NVIDIA's repository (or your mirror).", id="distro-branch"),
    pytest.param({"branch": "550", "distro_default_branch": ""}, "non-free archive has only the (none) branch",
                 id="distro-no-branch"),
    pytest.param({"distro_default_branch": "9" * 5000}, "non-free archive has only the %s... branch" % ("9" * 57),
                 id="distro-branch-clipped"),
    pytest.param({"branch": "55", "distro_default_branch": "55"}, 'nvidia_driver_branch "55": nvidia_driver_branch is '
                 "a driver branch such as 535 or 570 (empty: the OS default).", id="branch"),
    pytest.param({"version": "535"}, 'nvidia_driver_version "535" (branch "535"): nvidia_driver_version is empty or a '
                 "full version of that branch such as 535.261.03.", id="version-form"),
    pytest.param({"version": " 535.261.03"}, 'nvidia_driver_version " 535.261.03"', id="version-spaces"),
    pytest.param({"version": "550.54.15"}, 'nvidia_driver_version "550.54.15" (branch "535")',
                 id="version-outside-branch"),
    pytest.param({"kernel_modules": ""}, 'nvidia_driver_kernel_modules "": nvidia_driver_kernel_modules is '
                 "proprietary or open.", id="kernel-modules"),
    pytest.param({"fabricmanager": "yes"}, 'nvidia_driver_fabricmanager "yes": nvidia_driver_fabricmanager is auto, '
                 "enabled or disabled.", id="fabricmanager"),
    pytest.param({"fabric_manager_needed": True, "nvswitches": 1, "nvlink_all_to_all": True},
                 "node has NVSwitch-connected GPUs (1 NVSwitch PCI devices, NVLink all-to-all: True) and needs "
                 "nvidia-fabricmanager, which Debian's archive does not ship. Set nvidia_driver_source: nvidia "
                 "(NVIDIA's repository has nvidia-fabricmanager-<branch>), or name the packages in "
                 "nvidia_driver_fabricmanager_packages, or set nvidia_driver_fabricmanager: disabled if this is not "
                 "an NVSwitch system.", id="fabric-manager-packages"),
    pytest.param({"fabricmanager": "enabled"}, "node has NVSwitch-connected GPUs (0 NVSwitch PCI devices",
                 id="fabric-manager-enabled"),
    pytest.param({"reboot": "yes"}, "nvidia_driver_reboot and nvidia_driver_reboot_with_jobs must be true or false, "
                 'and nvidia_driver_reboot_timeout a number of seconds above 0 (got "yes", false, 1800).', id="reboot"),
    pytest.param({"reboot_with_jobs": None}, "(got true, null, 1800)", id="reboot-with-jobs"),
    pytest.param({"reboot_timeout": 0}, "(got true, false, 0)", id="timeout-zero"),
    pytest.param({"reboot_timeout": "soon"}, '(got true, false, "soon")', id="timeout-text"),
    pytest.param({"reboot_timeout": True}, "(got true, false, true)", id="timeout-bool"),
    pytest.param({"reboot_timeout": float("inf")}, "(got true, false, Infinity)", id="timeout-inf"),
    pytest.param({"packages": "nvidia-driver"}, "nvidia_driver_packages must be a list of package names, not "
                 "'nvidia-driver'", id="packages-shape"),
    pytest.param({"source_packages": ["x"]}, "nvidia_driver_source_packages must be a mapping of kernel module "
                 "flavour", id="source-packages-shape"),
    pytest.param({"version": 10 ** 5000}, "nvidia_driver_version must be text on one line such as 570, not a number",
                 id="version-huge"),
    pytest.param({"repo_base_url": "http://[::1", "source": "nvidia", "repo_dist": "debian12", "repo_arch": "x86_64",
                  "distro_default_branch": ""}, "nvidia_driver_repo_base_url 'http://[::1' is not a URL",
                 id="repo-url"),
])
def test_bad_driver_settings(changes, message):
    errors = driver_settings_errors(dict(DRIVER_CHECKS, **changes))
    assert len(errors) == 1 and message in errors[0], errors


def test_every_bad_driver_setting_is_named():
    errors = driver_settings_errors(dict(DRIVER_CHECKS, source="nvdia", branch="5", version="x", kernel_modules="x",
                                         fabricmanager="x", reboot_timeout=-1, packages={"a": 1}))
    assert [error.split(" ", 1)[0] for error in errors] == [
        "nvidia_driver_packages", "nvidia_driver_source", "nvidia_driver_branch", "nvidia_driver_version",
        "nvidia_driver_kernel_modules", "nvidia_driver_fabricmanager", "nvidia_driver_reboot"]


@pytest.mark.parametrize("value", [None, [], "x", 7, {"source": {"a": 1}, "branch": [1]}])
def test_driver_settings_of_any_shape_give_messages(value):
    errors = driver_settings_errors(value)
    assert errors and all(error.startswith("nvidia_driver_") for error in errors), errors


CUDA_CHECKS = {"source": "nvidia", "pkg_manager": "apt", "versions": ["12.4", "12.8"], "nvidia_default_versions": ["12.8"],
               "default_version": "12.8", "distro_versions": ["12.4"], "distro_package": "nvidia-cuda-toolkit",
               "distro_prefix": "/usr/lib/nvidia-cuda-toolkit", "distribution": "Debian",
               "distribution_major_version": "13"}


@pytest.mark.parametrize("settings", [CUDA_CHECKS, dict(CUDA_CHECKS, versions=[], default_version=""),
                                      dict(CUDA_CHECKS, source="distro", versions=[], default_version=""),
                                      dict(CUDA_CHECKS, source="distro", versions=["12.4"], default_version="12.4")],
                         ids=["nvidia", "nvidia-default", "distro-default", "distro-given"])
def test_good_cuda_settings(settings):
    assert cuda_settings_errors(settings) == []


@pytest.mark.parametrize("changes, message", [
    pytest.param({"pkg_manager": ""}, "no package data for Debian 13 (roles/cuda/vars; Debian 12/13, Ubuntu "
                 "22.04/24.04 and RHEL/Rocky 8/9 are known): cuda_source and cuda_versions cannot be installed here.",
                 id="os"),
    pytest.param({"source": "conda"}, 'cuda_source "conda": cuda_source is distro (the distribution\'s toolkit) or '
                 "nvidia (NVIDIA's repository, nvidia_driver_repo_base_url).", id="source"),
    pytest.param({"versions": [], "nvidia_default_versions": [], "default_version": ""},
                 "cuda_versions [] on Debian 13: cuda_versions lists major.minor versions such as 12.4 and "
                 "cuda_default_version is one of them.", id="no-versions"),
    pytest.param({"versions": ["12.4", "12"], "default_version": "12.4"}, 'cuda_versions ["12"] on Debian 13: '
                 "cuda_versions lists major.minor versions", id="version-form"),
    pytest.param({"default_version": "12.6"}, 'cuda_default_version "12.6" is not in cuda_versions ["12.4", "12.8"]: '
                 "cuda_versions lists major.minor versions such as 12.4 and cuda_default_version is one of them.",
                 id="default"),
    pytest.param({"source": "distro", "default_version": "12.4"}, 'cuda_versions ["12.4", "12.8"]: the distro source '
                 'has exactly ["12.4"] here - for other or several versions set cuda_source: nvidia (NVIDIA\'s '
                 "repository, nvidia_driver_repo_base_url).", id="distro-versions"),
    pytest.param({"versions": "12.4"}, "cuda_versions must be a list of versions such as ['12.8'], not '12.4'",
                 id="versions-shape"),
    pytest.param({"pkg_manager": ["apt"]}, "cuda_pkg_manager must be text on one line", id="shape"),
])
def test_bad_cuda_settings(changes, message):
    errors = cuda_settings_errors(dict(CUDA_CHECKS, **changes))
    assert len(errors) == 1 and message in errors[0], errors


def test_every_bad_cuda_setting_is_named():
    errors = cuda_settings_errors(dict(CUDA_CHECKS, pkg_manager="", source="distro", versions=["12.4", "x"],
                                       default_version="11.8"))
    expected = ["no", "cuda_versions", "cuda_default_version", "cuda_versions"]
    assert [error.split(" ", 1)[0] for error in errors] == expected
    assert "cuda_source" in cuda_settings_errors(dict(CUDA_CHECKS, source="x", default_version="9.9"))[0]


@pytest.mark.parametrize("value", [None, [], "x", {"versions": {"12.4": 1}}, {"default_version": [1]}])
def test_cuda_settings_of_any_shape_give_messages(value):
    errors = cuda_settings_errors(value)
    assert errors and all("cuda" in error for error in errors), errors


class _Undefined(object):
    """Stands for Jinja's Undefined, as hostvars hands it for an unknown host."""


_Undefined.__name__ = "AnsibleUndefined"


@pytest.mark.parametrize("hostvars, hosts, expected", [
    ({"gpu01": {"__nvidia_driver_failed": "gpuops: NVIDIA driver change failed at Install: no candidate"},
      "gpu02": {"other": 1}}, ["gpu01", "gpu02", "gpu03"],
     {"gpu01": "gpuops: NVIDIA driver change failed at Install: no candidate"}),
    ({"gpu01": {"__nvidia_driver_failed": None}}, ["gpu01"], {}),
    ({"gpu01": _Undefined()}, ["gpu01"], {}),
    ({"gpu01": "not a mapping"}, ["gpu01"], {}),
    ("garbage", ["gpu01"], {}),
    ({"gpu01": {"__nvidia_driver_failed": "x"}}, "gpu01", {}),
    ({"gpu01": {"__nvidia_driver_failed": "x"}}, [["unhashable"], "gpu01"], {"gpu01": "x"}),
])
def test_driver_failures_names_the_hosts_whose_driver_step_failed(hostvars, hosts, expected):
    assert driver_failures(hostvars, hosts) == expected


CONTAINERS = ["docker", "podman", "container", "lxc"]
GPU = [{"bus_id": "0000:3b:00.0", "device_id": "1db6"}]


@pytest.mark.parametrize("args, expected", [
    # A bare-metal GPU node: the hardware is there.
    ((GPU, False, "host", "kvm"), {"hardware": True, "container": False, "reason": ""}),
    # A VM guest that is no container, with a GPU passed through.
    ((GPU, False, "guest", "kvm"), {"hardware": True, "container": False, "reason": ""}),
    ((GPU, False, "guest", "docker"), {"hardware": False, "container": True, "reason": "running in a docker container"}),
    ((GPU, False, "guest", "container"), {"hardware": False, "container": True, "reason": "running in a container"}),
    # The image reason comes first, even in a container.
    ((GPU, True, "guest", "docker"),
     {"hardware": False, "container": True,
      "reason": "building a node image (gpuops_image_build): its nodes load the driver at boot"}),
    (([], False, "host", ""), {"hardware": False, "container": False, "reason": "no NVIDIA GPU on the PCI bus"}),
    # A host role of docker is the machine running containers, not one of them.
    (([], False, "host", "docker"), {"hardware": False, "container": False, "reason": "no NVIDIA GPU on the PCI bus"}),
    # Facts that are missing or of the wrong type read as "not known".
    ((None, False, None, None), {"hardware": False, "container": False, "reason": "no NVIDIA GPU on the PCI bus"}),
])
def test_hardware_state(args, expected):
    assert hardware_state(*args, container_types=CONTAINERS) == expected


def test_hardware_state_takes_the_collections_container_types_by_default():
    assert hardware_state(GPU, False, "guest", "systemd-nspawn") == {
        "hardware": False, "container": True, "reason": "running in a systemd-nspawn container"}
    # an empty list given: no type means a container
    assert hardware_state(GPU, False, "guest", "docker", ()) == {"hardware": True, "container": False, "reason": ""}


BLACKLIST = {"path": "/etc/modprobe.d/bl.conf", "content": "blacklist nouveau\n", "owner": "root", "group": "root",
             "mode": "0644"}
NONFREE = dict(BLACKLIST, path="/etc/apt/sources.list.d/nonfree.sources", content="Components: non-free\n")
TODO_SETTINGS = {"hold": True, "blacklist_nouveau": True, "blacklist": BLACKLIST, "nonfree_elsewhere": False,
                 "repo_files": [NONFREE], "repo_key_file": "/etc/apt/keyrings/k.asc", "check_mode": False}


def _found(wanted, **changes):
    """A host_probe files entry for a wanted file as it is on disk (changes: what differs)."""
    entry = {"path": wanted["path"], "isreg": True, "checksum": content_checksum(wanted["content"]),
             "pw_name": "root", "gr_name": "root", "mode": "0644"}
    entry.update(changes)
    return entry


def _probe(versions=None, holds=None, enabled=True, files=None):
    versions = versions if versions is not None else {
        "nvidia-kernel-dkms": "535.261.03-1", "nvidia-smi": "535.261.03-1", "nvidia-persistenced": "535.43.02-1"}
    return {"package_versions": versions,
            "package_holds": holds if holds is not None else dict.fromkeys(versions, True),
            "services": {"nvidia-persistenced": {"loaded": True, "enabled": enabled}},
            "files": files if files is not None else [_found(BLACKLIST), _found(NONFREE)]}


def test_driver_todo_nothing_to_do_on_an_up_to_date_host():
    todo = driver_todo(driver_plan(DEBIAN), _probe(), TODO_SETTINGS)
    assert todo == {"pending": False, "changing": False, "repository": False, "hold": [], "blacklist": "",
                    "enable": [], "any": False}


def test_driver_todo_a_new_branch_changes_the_driver_and_enables_the_services():
    todo = driver_todo(driver_plan(dict(DEBIAN, branch="550")), _probe(), TODO_SETTINGS)
    assert todo["pending"] and todo["changing"] and todo["any"]
    assert todo["enable"] == ["nvidia-persistenced"] and todo["hold"] == []


def test_driver_todo_a_missing_helper_is_pending_without_a_driver_change():
    versions = {"nvidia-kernel-dkms": "535.261.03-1", "nvidia-smi": "535.261.03-1", "nvidia-persistenced": ""}
    todo = driver_todo(driver_plan(DEBIAN), _probe(versions=versions), TODO_SETTINGS)
    assert todo["pending"] and not todo["changing"]
    # Only what is installed is held; the epoch of a version does not matter.
    versions = dict(versions, **{"nvidia-persistenced": "1:535.43.02-1", "nvidia-smi": "535.261.03-1"})
    todo = driver_todo(driver_plan(DEBIAN), _probe(versions=versions, holds={"nvidia-smi": False}), TODO_SETTINGS)
    assert not todo["pending"] and todo["hold"] == ["nvidia-kernel-dkms", "nvidia-smi", "nvidia-persistenced"]
    assert driver_todo(driver_plan(DEBIAN), _probe(holds={}), dict(TODO_SETTINGS, hold=False))["any"] is False


def test_driver_todo_files_services_and_check_mode():
    stale = _probe(files=[_found(BLACKLIST, mode="0600"), _found(NONFREE)])
    assert driver_todo(driver_plan(DEBIAN), stale, TODO_SETTINGS)["blacklist"] == "write"
    off = dict(TODO_SETTINGS, blacklist_nouveau=False)
    assert driver_todo(driver_plan(DEBIAN), _probe(), off)["blacklist"] == "remove"
    assert driver_todo(driver_plan(DEBIAN), _probe(files=[_found(NONFREE)]), off)["any"] is False
    assert driver_todo(driver_plan(DEBIAN), _probe(enabled=False), TODO_SETTINGS)["enable"] == ["nvidia-persistenced"]
    # In check mode a unit the packages have not installed yet cannot be enabled.
    fresh = {"package_versions": {}, "package_holds": {}, "services": {"nvidia-persistenced": {"loaded": False}},
             "files": []}
    todo = driver_todo(driver_plan(DEBIAN), fresh, dict(TODO_SETTINGS, check_mode=True))
    assert todo["enable"] == [] and todo["pending"] and todo["repository"] and todo["blacklist"] == "write"


def test_driver_todo_package_sources():
    no_source = _probe(files=[_found(BLACKLIST)])
    assert driver_todo(driver_plan(DEBIAN), no_source, TODO_SETTINGS)["repository"] is True
    # Another apt source enables non-free: the role writes none of its own.
    elsewhere = dict(TODO_SETTINGS, nonfree_elsewhere=True)
    assert driver_todo(driver_plan(DEBIAN), no_source, elsewhere)["repository"] is False
    plan = driver_plan(UBUNTU)
    versions = {"cuda-drivers-570": "570.86.15-1", "nvidia-driver-570": "570.86.15-0ubuntu1",
                "nvidia-fabricmanager-570": "570.86.15-1"}
    repo = dict(BLACKLIST, path="/etc/apt/sources.list.d/nvidia.list", content="deb x /\n")
    nvidia = dict(TODO_SETTINGS, repo_files=[repo])
    services = {name: {"loaded": True, "enabled": True} for name in plan["services"]}
    probe = dict(_probe(versions=versions), services=services,
                 files=[_found(BLACKLIST), _found(repo), {"path": "/etc/apt/keyrings/k.asc", "isreg": True}])
    assert driver_todo(plan, probe, nvidia)["any"] is False
    assert driver_todo(plan, dict(probe, files=probe["files"][:2]), nvidia)["repository"] is True
    assert driver_todo(dict(plan, pkg_manager="dnf"), probe, dict(nvidia, repo_files=[]))["repository"] is True


@pytest.mark.parametrize("plan, probe, settings", [
    ("plan", {}, {}), ({}, {}, "settings"),
    (driver_plan(DEBIAN), {"package_versions": []}, TODO_SETTINGS),
    (driver_plan(DEBIAN), {"files": [{"mode": "0644"}]}, TODO_SETTINGS),
    (driver_plan(DEBIAN), {"services": None}, TODO_SETTINGS),
])
def test_driver_todo_refuses_garbage(plan, probe, settings):
    with pytest.raises(GpuPlanError):
        driver_todo(plan, probe, settings)
