# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""env_modules plan (module_utils/site/_env_modules.py): setting errors, MODULEPATH, CUDA toolkits, stale modulefiles."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site._env_modules import (
    EnvModulesError,
    cuda_toolkits,
    cuda_version_from_dir,
    cuda_version_from_package,
    dir_levels,
    plan,
    probe_paths,
    settings_errors,
)

SETTINGS = {
    "dir": "/opt/gpuops/modulefiles", "paths": [], "cuda": True, "nccl": True, "nccl_conf_path": "/etc/nccl.conf",
    "distro_paths": ["/etc/lmod/modules", "/usr/share/lmod/lmod/modulefiles/"],
    "bash_env_path": "/etc/gpuops/env_modules/bash_env.sh", "task_prolog_path": "/etc/slurm/task_prolog.d/50-env-modules.sh",
}
DEBIAN_DISTRO = [{"package": "nvidia-cuda-toolkit", "prefix": "/usr/lib/nvidia-cuda-toolkit"}]
TREE = "/opt/gpuops/modulefiles"


def _files(*paths):
    return [{"path": path, "isdir": not path.endswith("nvcc"), "isreg": path.endswith("nvcc")} for path in paths]


@pytest.mark.parametrize("path, version", [
    ("/usr/local/cuda-12.8", "12.8"), ("/usr/local/cuda-11.8/", "11.8"), ("/usr/local/cuda-12.08", "12.8"),
    ("/usr/local/cuda", None), ("/usr/local/cuda-12", None), ("/usr/local/cuda-12.8.1", None),
    ("/usr/local/cuda-12.x", None), ("/usr/local/mycuda-12.8", None),
])
def test_cuda_version_from_dir(path, version):
    assert cuda_version_from_dir(path) == version


@pytest.mark.parametrize("version, expected", [
    ("11.8.89~11.8.0-5~deb12u1", "11.8"),  # Debian 12
    ("12.4.131~12.4.1-1", "12.4"),  # Debian 13
    ("1:12.4.131-2", "12.4"), ("12.8", "12.8"), ("12.8-1", "12.8"),
    (None, None), ("", None), ("12", None), ("junk", None), ("12.4junk", None),
])
def test_cuda_version_from_package(version, expected):
    assert cuda_version_from_package(version) == expected


def test_dir_levels_below_the_top_parents_first_each_once():
    assert dir_levels(["/opt/gpuops/modulefiles", "/opt/gpuops/modulefiles/cuda", "/etc/gpuops/env_modules"]) == [
        "/opt/gpuops", "/opt/gpuops/modulefiles", "/opt/gpuops/modulefiles/cuda", "/etc/gpuops", "/etc/gpuops/env_modules"]
    assert dir_levels(["/modulefiles"]) == []


def test_defaults_have_no_errors_and_the_collection_tree_comes_first():
    result = plan(SETTINGS)
    assert result["errors"] == []
    assert result["modulepath"] == [TREE, "/etc/lmod/modules", "/usr/share/lmod/lmod/modulefiles"]
    assert result["files"] == [] and result["toolkits"] == []


def test_site_paths_come_after_the_collection_tree_each_once():
    result = plan(dict(SETTINGS, paths=["/apps/modulefiles", TREE, "/etc/lmod/modules", "/apps/modulefiles"]))
    assert result["modulepath"] == [TREE, "/apps/modulefiles", "/etc/lmod/modules", "/usr/share/lmod/lmod/modulefiles"]


@pytest.mark.parametrize("change, message", [
    ({"dir": "opt/modulefiles"}, "env_modules_dir must be an absolute path without blanks, colons, quotes, $, "
                                 "backquotes or backslashes, not 'opt/modulefiles'."),
    ({"dir": "/opt/my modules"}, "env_modules_dir must be an absolute path without blanks"),
    ({"dir": "/opt/gpuops/modulefiles/"}, "env_modules_dir must be a normalised absolute path below / (no trailing "
                                          "slash, . or ..), not '/opt/gpuops/modulefiles/'."),
    ({"dir": "/opt/../modulefiles"}, "env_modules_dir must be a normalised absolute path"),
    ({"dir": "/"}, "env_modules_dir must be a normalised absolute path"),
    ({"dir": ""}, "env_modules_dir must be an absolute path, not ''."),
    ({"dir": None}, "env_modules_dir must be an absolute path, not null."),
    ({"paths": "/apps/modulefiles"}, "env_modules_paths must be a list of absolute paths (site modulefile trees), "
                                     "not '/apps/modulefiles'."),
    ({"paths": ["/apps/modulefiles", "modulefiles"]}, "env_modules_paths: every entry must be an absolute path"),
    ({"paths": ["/apps/a:/apps/b"]}, "env_modules_paths: every entry must be an absolute path without blanks, colons"),
    ({"paths": [["/apps"]]}, "env_modules_paths: every entry must be an absolute path, not ['/apps']."),
    ({"nccl_conf_path": "nccl.conf"}, "env_modules_nccl_conf_path must be an absolute path"),
    ({"bash_env_path": "$HOME/bash_env"}, "env_modules_bash_env_path must be an absolute path"),
    ({"task_prolog_path": "/etc/slurm/task prolog"}, "env_modules_task_prolog_path must be an absolute path"),
    ({"cuda": "maybe"}, "env_modules_cuda must be true or false, not 'maybe'."),
    ({"nccl": 1}, "env_modules_nccl must be true or false, not 1."),
    ({"task_prolog_path": "/etc/gpuops/env_modules/bash_env.sh"},
     "env_modules_bash_env_path and env_modules_task_prolog_path must be two files"),
    ({"task_prolog_path": TREE + "/task_prolog.sh"},
     "env_modules_task_prolog_path ('/opt/gpuops/modulefiles/task_prolog.sh') must not be inside env_modules_dir"),
])
def test_bad_settings_give_a_message_naming_the_variable(change, message):
    errors = settings_errors(dict(SETTINGS, **change))
    assert any(error.startswith(message) for error in errors), errors
    result = plan(dict(SETTINGS, **change), {})
    assert result["errors"] == errors and result["files"] == [] and result["modulepath"] == []


def test_every_candidate_toolkit_is_probed():
    found = {"cuda_dirs": ["/usr/local/cuda-12.8", "/usr/local/cuda-backup"], "distro": DEBIAN_DISTRO}
    assert probe_paths(found) == ["/usr/local/cuda-12.8/bin/nvcc", "/usr/local/cuda-12.8/lib64",
                                  "/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "/usr/lib/nvidia-cuda-toolkit/lib64"]
    assert probe_paths({"cuda_dirs": {"files": [{"path": "/usr/local/cuda-12.4"}]}}) == [
        "/usr/local/cuda-12.4/bin/nvcc", "/usr/local/cuda-12.4/lib64"]


def test_toolkits_need_nvcc_sort_by_version_and_nvidia_wins_over_the_distribution():
    found = {
        "cuda_dirs": ["/usr/local/cuda-12.10", "/usr/local/cuda-12.4", "/usr/local/cuda-12.8", "/usr/local/cuda-11.0"],
        "distro": DEBIAN_DISTRO, "package_versions": {"nvidia-cuda-toolkit": "12.4.131~12.4.1-1"},
        "files": _files("/usr/local/cuda-12.10/bin/nvcc", "/usr/local/cuda-12.4/bin/nvcc", "/usr/local/cuda-12.8/bin/nvcc",
                        "/usr/local/cuda-12.8/lib64", "/usr/local/cuda-11.0/lib64",
                        "/usr/lib/nvidia-cuda-toolkit/bin/nvcc"),
    }
    assert cuda_toolkits(found) == [
        {"version": "12.4", "prefix": "/usr/local/cuda-12.4", "lib_dirs": []},
        {"version": "12.8", "prefix": "/usr/local/cuda-12.8", "lib_dirs": ["/usr/local/cuda-12.8/lib64"]},
        {"version": "12.10", "prefix": "/usr/local/cuda-12.10", "lib_dirs": []},
    ]


def test_debian_distribution_toolkit():
    found = {"cuda_dirs": [], "distro": DEBIAN_DISTRO,
             "package_versions": {"nvidia-cuda-toolkit": "11.8.89~11.8.0-5~deb12u1"},
             "files": _files("/usr/lib/nvidia-cuda-toolkit/bin/nvcc"), "cuda_link": "/usr/lib/nvidia-cuda-toolkit"}
    result = plan(SETTINGS, found)
    assert result["toolkits"] == [{"version": "11.8", "prefix": "/usr/lib/nvidia-cuda-toolkit", "lib_dirs": []}]
    assert result["cuda_default"] == "11.8" and result["note"] == ""
    assert [entry["path"] for entry in result["files"]] == [TREE + "/nccl", TREE + "/cuda/11.8", TREE + "/cuda/.version"]


def test_a_distribution_package_that_is_not_installed_is_no_toolkit():
    found = {"distro": DEBIAN_DISTRO, "package_versions": {"nvidia-cuda-toolkit": None},
             "files": _files("/usr/lib/nvidia-cuda-toolkit/bin/nvcc")}
    assert cuda_toolkits(found) == []


def test_plan_with_toolkits_default_and_stale_files():
    found = {
        "cuda_dirs": {"files": [{"path": "/usr/local/cuda-12.4"}, {"path": "/usr/local/cuda-12.8"}]},
        "distro": [], "package_versions": {},
        "files": _files("/usr/local/cuda-12.4/bin/nvcc", "/usr/local/cuda-12.8/bin/nvcc", "/usr/local/cuda-12.8/lib64",
                        TREE, TREE + "/cuda"),
        "cuda_link": "/usr/local/cuda-12.4",
        "managed": [TREE + "/nccl", TREE + "/cuda/12.4", TREE + "/cuda/11.8", TREE + "/cuda/.version",
                    TREE + "/pytorch/2.13.0-cpu", "/elsewhere/cuda/10.0"],
    }
    result = plan(SETTINGS, found)
    assert result["errors"] == [] and result["cuda_default"] == "12.4"
    assert [(entry["path"], entry["kind"]) for entry in result["files"]] == [
        (TREE + "/nccl", "nccl"), (TREE + "/cuda/12.4", "cuda"), (TREE + "/cuda/12.8", "cuda"),
        (TREE + "/cuda/.version", "cuda_default")]
    assert result["files"][2]["toolkit"] == {"version": "12.8", "prefix": "/usr/local/cuda-12.8",
                                             "lib_dirs": ["/usr/local/cuda-12.8/lib64"]}
    # Only the role's own files in its own places go: not pytorch_env's modulefile, nothing outside the tree.
    assert result["stale"] == [TREE + "/cuda/11.8"]
    assert result["dirs"] == ["/opt/gpuops", TREE, TREE + "/cuda", "/etc/gpuops", "/etc/gpuops/env_modules",
                              "/etc/slurm", "/etc/slurm/task_prolog.d"]


def test_no_default_when_usr_local_cuda_points_elsewhere_and_the_old_version_file_goes():
    found = {"cuda_dirs": ["/usr/local/cuda-12.8"], "files": _files("/usr/local/cuda-12.8/bin/nvcc"),
             "cuda_link": "/opt/other-cuda", "managed": [TREE + "/cuda/.version", TREE + "/cuda/12.8"]}
    result = plan(SETTINGS, found)
    assert result["cuda_default"] == "" and result["stale"] == [TREE + "/cuda/.version"]


def test_no_toolkit_gives_a_note_and_no_cuda_directory():
    result = plan(SETTINGS, {"cuda_dirs": [], "distro": DEBIAN_DISTRO, "package_versions": {}, "files": []})
    assert result["toolkits"] == [] and [entry["path"] for entry in result["files"]] == [TREE + "/nccl"]
    assert result["note"] == ("no CUDA toolkit here (no /usr/local/cuda-<version>/bin/nvcc or "
                              "/usr/lib/nvidia-cuda-toolkit/bin/nvcc): no cuda modulefile")
    assert TREE + "/cuda" not in result["dirs"]


def test_switched_off_modulefiles_are_removed():
    found = {"cuda_dirs": ["/usr/local/cuda-12.8"], "files": _files("/usr/local/cuda-12.8/bin/nvcc"),
             "managed": [TREE + "/nccl", TREE + "/cuda/12.8"]}
    result = plan(dict(SETTINGS, cuda=False, nccl=False), found)
    assert result["files"] == [] and result["note"] == ""
    assert result["stale"] == [TREE + "/cuda/12.8", TREE + "/nccl"]


@pytest.mark.parametrize("settings, found", [("not a dict", None), (SETTINGS, ["not", "a", "dict"]),
                                             (SETTINGS, {"cuda_dirs": "/usr/local/cuda-12.8"})])
def test_malformed_input_raises_the_modules_own_error(settings, found):
    with pytest.raises(EnvModulesError):
        plan(settings, found)


def test_no_os_data_is_named_with_the_os():
    from ansible_collections.gpuops.cluster.plugins.module_utils.site._env_modules import settings_errors as errors_of
    assert errors_of(dict(SETTINGS, os_data=True, os_name="Ubuntu Debian")) == []
    assert errors_of(dict(SETTINGS, os_data=False, os_name="Plan9 Bell")) == [
        "no Lmod data for Plan9 Bell (roles/env_modules/vars)."]
