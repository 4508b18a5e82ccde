# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_source import (
    KEPT_PACKAGES,
    SlurmSourceError,
    build_key,
    build_plan,
    component_of,
    host_packages,
    kept_files,
    package_name,
    package_names,
    series_of,
    settings_errors,
)

SHA = "d51a0896d270dda7480b41626a102a5490c66d2fb8a7426f1358a3543e947bf0"
GOOD = {"install_from": "source", "src": "/srv/mirror/slurm-26.05.3.tar.bz2", "sha256": SHA, "version": "26.05.3",
        "cache_dir": "/var/cache/gpuops", "repo_dir": "/var/lib/gpuops/slurm-packages", "nvml": True,
        "os_families": {"ctl": "Debian", "gpu01": "Debian"}}
# What a build of SchedMD's debian/ of 26.05.3 left on Debian 12 (ls of the build's parent directory).
BUILT = ["slurm-smd-client-dbgsym_26.05.3-1_amd64.deb", "slurm-smd-client_26.05.3-1_amd64.deb",
         "slurm-smd-dev_26.05.3-1_amd64.deb", "slurm-smd-doc_26.05.3-1_all.deb",
         "slurm-smd-libnss-slurm_26.05.3-1_amd64.deb", "slurm-smd-libpam-slurm-adopt_26.05.3-1_amd64.deb",
         "slurm-smd-libpmi0_26.05.3-1_amd64.deb", "slurm-smd-libpmi2-0_26.05.3-1_amd64.deb",
         "slurm-smd-libslurm-perl_26.05.3-1_amd64.deb", "slurm-smd-openlava_26.05.3-1_all.deb",
         "slurm-smd-sackd_26.05.3-1_amd64.deb", "slurm-smd-slurmctld_26.05.3-1_amd64.deb",
         "slurm-smd-slurmd_26.05.3-1_amd64.deb", "slurm-smd-slurmdbd_26.05.3-1_amd64.deb",
         "slurm-smd-slurmrestd_26.05.3-1_amd64.deb", "slurm-smd-sview_26.05.3-1_amd64.deb",
         "slurm-smd-torque_26.05.3-1_all.deb", "slurm-smd_26.05.3-1_amd64.deb", "slurm-smd.buildinfo"]


def test_good_settings_and_distribution_need_nothing():
    assert settings_errors(GOOD) == []
    assert settings_errors({"install_from": "distribution"}) == []


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"install_from": "tarball"}, "slurm_install_from is 'tarball'; use distribution"),
        ({"src": "slurm.tar.bz2"}, "slurm_source_src is 'slurm.tar.bz2'; give the Slurm release tarball"),
        ({"src": "ftp://mirror/slurm-26.05.3.tar.bz2"}, "slurm_source_src is 'ftp://mirror/slurm-26.05.3.tar.bz2'"),
        ({"sha256": SHA.upper()}, "slurm_source_sha256 is "),
        ({"sha256": ""}, "give the tarball's SHA-256 (64 lower-case hex digits"),
        ({"version": "26.05"}, "slurm_source_version is '26.05'; give the tarball's Slurm release"),
        ({"version": "25.11.1"}, "slurm_source_version '25.11.1' is not in the tarball's name ('slurm-26.05.3.tar.bz2')"),
        ({"cache_dir": "cache"}, "slurm_source_cache_dir is 'cache'; give an absolute path on the Ansible controller"),
        ({"repo_dir": "/tmp"}, "slurm_source_repo_dir is '/tmp'"),
        ({"nvml": "yes"}, "slurm_source_nvml is 'yes'; use true or false."),
        ({"os_families": {"ctl": "Debian", "el9": "RedHat"}}, "el9 runs another OS: use slurm_install_from=distribution"),
    ],
)
def test_bad_settings_are_named_with_the_fix(change, expected):
    settings = dict(GOOD, **change)
    errors = settings_errors(settings)
    assert len(errors) == 1 and expected in errors[0], errors


def test_https_and_file_urls_are_sources():
    for src in ("https://mirror.example/slurm/slurm-26.05.3.tar.bz2", "file:///srv/slurm-26.05.3.tar.bz2"):
        assert settings_errors(dict(GOOD, src=src)) == []


def test_hostile_settings_give_messages():
    for value in (None, 3, [], {"a": 1}, True, "x" * 5000):
        errors = settings_errors(dict(GOOD, src=value, sha256=value, version=value, cache_dir=value,
                                      repo_dir=value, nvml=value, os_families={}))
        assert len(errors) >= 5


def test_the_cache_key_names_tarball_os_arch_and_options():
    assert build_key("26.05.3", SHA, "Debian", "12", "x86_64", True) == "slurm-26.05.3-d51a0896d270-debian12-x86_64-nvml"
    assert build_key("26.05.3", SHA, "Debian", "13", "aarch64", False) == \
        "slurm-26.05.3-d51a0896d270-debian13-aarch64-nonvml"
    # Nothing from the facts can leave the folder name.
    assert "/" not in build_key("26.05.3", SHA, "../../etc", "1 2", "x/y", True)


def test_one_build_per_os_release_and_architecture_the_cache_lacks():
    hosts = {"ctl": {"distribution": "Debian", "major": "12", "arch": "x86_64"},
             "gpu01": {"distribution": "Debian", "major": "12", "arch": "x86_64"},
             "gpu02": {"distribution": "Debian", "major": "13", "arch": "x86_64"},
             "arm01": {"distribution": "Debian", "major": "13", "arch": "aarch64"}}
    settings = {"version": "26.05.3", "sha256": SHA, "nvml": True, "build_host": "gpu01"}
    cached = ["slurm-26.05.3-d51a0896d270-debian13-aarch64-nvml"]
    plan = build_plan(hosts, settings, cached)
    assert plan["keys"]["ctl"] == plan["keys"]["gpu01"] == "slurm-26.05.3-d51a0896d270-debian12-x86_64-nvml"
    assert plan["builds"] == [{"key": "slurm-26.05.3-d51a0896d270-debian12-x86_64-nvml", "host": "gpu01"},
                              {"key": "slurm-26.05.3-d51a0896d270-debian13-x86_64-nvml", "host": "gpu02"}]
    # A build host of another release builds nothing of this one: the first host of the key does.
    plan = build_plan(hosts, dict(settings, build_host="gpu02"), [])
    assert {"key": "slurm-26.05.3-d51a0896d270-debian12-x86_64-nvml", "host": "ctl"} in plan["builds"]
    assert build_plan(hosts, settings, sorted(set(plan["keys"].values())))["builds"] == []


def test_the_packages_of_each_component():
    assert package_names(["slurmctld", "slurm-client", "munge"], "source") == ["slurm-smd-slurmctld", "slurm-smd-client",
                                                                               "munge"]
    assert package_names(["slurmd", "slurm-client", "munge", "dbus", "libpmix2"], "source") == [
        "slurm-smd-slurmd", "slurm-smd-client", "munge", "dbus", "libpmix2"]
    # Debian's plugin and library packages are all in slurm-smd.
    assert package_names(["slurm-wlm-basic-plugins", "slurm-wlm-mysql-plugin", "libslurm42t64", "slurm-wlm-nvml-plugin"],
                         "source") == ["slurm-smd"]
    assert package_name("libslurm-dev", "source") == "slurm-smd-dev"
    assert package_name("libpam-slurm-adopt", "source") == "slurm-smd-libpam-slurm-adopt"
    assert package_names(["slurmctld", "slurm-client"], "distribution") == ["slurmctld", "slurm-client"]


# roles/_slurm_common/vars/Debian.yml's sets.
SETS = {"controller": ["slurmctld", "slurm-client", "munge"], "compute": ["slurmd", "slurm-client", "munge", "dbus"],
        "client": ["slurm-client", "munge"], "pmix": ["libpmix2", "libpmix-dev"], "nvml_plugin": ["slurm-wlm-nvml-plugin"]}
CONTROLLER = {"controller": True, "compute": False, "dbd_only": False}
COMPUTE = {"controller": False, "compute": True, "dbd_only": False}
DBD_ONLY = {"controller": False, "compute": False, "dbd_only": True}


@pytest.mark.parametrize("roles, install_from, pmix, autodetect, expected", [
    (CONTROLLER, "distribution", True, "off", ["slurmctld", "slurm-client", "munge", "libpmix2", "libpmix-dev"]),
    (COMPUTE, "distribution", False, "off", ["slurmd", "slurm-client", "munge", "dbus"]),
    (COMPUTE, "distribution", False, "nvml", ["slurmd", "slurm-client", "munge", "dbus", "slurm-wlm-nvml-plugin"]),
    # A source build has NVML in its own plugins (slurm-smd); Debian's plugin is never mixed in.
    (COMPUTE, "source", True, "nvml", ["slurm-smd-slurmd", "slurm-smd-client", "munge", "dbus", "libpmix2",
                                       "libpmix-dev"]),
    (COMPUTE, "distribution", False, "nvidia", ["slurmd", "slurm-client", "munge", "dbus"]),
    (DBD_ONLY, "source", True, "nvml", ["slurm-smd-client", "munge"]),
    # A controller that is a compute node too: each package once, the controller's first.
    (dict(CONTROLLER, compute=True), "source", False, "off", ["slurm-smd-slurmctld", "slurm-smd-client", "munge",
                                                              "slurm-smd-slurmd", "dbus"]),
    ({"controller": False, "compute": False, "dbd_only": False}, "source", True, "off", ["libpmix2", "libpmix-dev"]),
    # A login node: the commands, munge and PMIx for srun; sackd where it fetches its configuration.
    ({"login": True}, "distribution", True, "off", ["slurm-client", "munge", "libpmix2", "libpmix-dev"]),
    ({"login": True, "sackd": True}, "source", False, "off", ["slurm-smd-client", "munge", "slurm-smd-sackd"]),
    ({"login": True, "sackd": True}, "distribution", False, "off", ["slurm-client", "munge", "sackd"]),
])
def test_a_hosts_packages_by_its_roles(roles, install_from, pmix, autodetect, expected):
    assert host_packages(roles, SETS, install_from, pmix, autodetect) == expected


@pytest.mark.parametrize("roles, sets", [
    (None, SETS), (COMPUTE, None), (COMPUTE, dict(SETS, compute="slurmd")), (COMPUTE, dict(SETS, pmix=[None])),
    (COMPUTE, dict(SETS, client=[""])),
])
def test_bad_package_sets_are_named(roles, sets):
    with pytest.raises(SlurmSourceError):
        host_packages(roles, sets, "source", True, "off")


def test_components_of_installed_packages_of_either_kind():
    assert [component_of(name) for name in ("slurm-smd-slurmd", "slurm-smd-dev", "slurm-smd", "slurmd", "munge")] == [
        "slurmd", "libslurm-dev", "slurm-wlm-basic-plugins", "slurmd", "munge"]
    for name in KEPT_PACKAGES:
        assert package_name(component_of(name), "source") == name


def test_the_kept_packages_of_a_real_build():
    kept = kept_files(["../" + name for name in BUILT])
    assert sorted(name.split("/")[-1].split("_")[0] for name in kept) == sorted(
        ["slurm-smd", "slurm-smd-client", "slurm-smd-dev", "slurm-smd-libnss-slurm", "slurm-smd-libpam-slurm-adopt",
         "slurm-smd-libpmi0", "slurm-smd-libpmi2-0", "slurm-smd-sackd", "slurm-smd-slurmctld", "slurm-smd-slurmd",
         "slurm-smd-slurmdbd", "slurm-smd-slurmrestd"])
    assert kept_files(None) == [] and kept_files(["x.deb", "slurm-smd-sview_1_amd64.deb"]) == []


def test_series_of():
    assert series_of("26.05.3") == "26.05"
    with pytest.raises(SlurmSourceError):
        series_of("next")
