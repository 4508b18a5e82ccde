# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of host_probe, over output captured in the Debian 12 lab controller
(systemd 252, dpkg 1.21) after the Slurm converge."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import host_probe
from ansible_collections.gpuops.cluster.plugins.module_utils.common._host_probe import (
    HostProbeError,
    parse_dpkg_query_details,
    parse_rpm_query_details,
    parse_systemctl_show,
    parse_versionlock_list,
)

# systemctl show -p Id -p LoadState -p ActiveState -p UnitFileState munge.service slurmctld.service nosuch.service
SYSTEMCTL_SHOW = """Id=munge.service
LoadState=loaded
ActiveState=active
UnitFileState=enabled

Id=slurmctld.service
LoadState=loaded
ActiveState=active
UnitFileState=enabled

Id=nosuch.service
LoadState=not-found
ActiveState=inactive
UnitFileState=
"""

# dpkg-query -W -f '${Package} ${db:Status-Status} ${db:Status-Want} ${Version}\n' munge slurmctld slurmd nosuch
# (rc 1; stderr names slurmd, nosuch)
DPKG_QUERY = "munge installed install 0.5.15-2\nslurmctld installed install 22.05.8-4\n"


def test_systemctl_show():
    assert parse_systemctl_show(SYSTEMCTL_SHOW) == {
        "munge": {"loaded": True, "active": True, "enabled": True, "state": "active"},
        "slurmctld": {"loaded": True, "active": True, "enabled": True, "state": "active"},
        "nosuch": {"loaded": False, "active": False, "enabled": False, "state": "inactive"},
    }


def test_systemctl_show_stopped_disabled():
    out = "Id=slurmd.service\nLoadState=loaded\nActiveState=failed\nUnitFileState=disabled\n"
    assert parse_systemctl_show(out) == {"slurmd": {"loaded": True, "active": False, "enabled": False, "state": "failed"}}


@pytest.mark.parametrize(
    "output, message",
    [
        ("LoadState=loaded\nActiveState=active\n", "systemctl show block without Id: {'LoadState': 'loaded', 'ActiveState': 'active'}"),
        ("Id=x.service\nnot a property\n", "unexpected systemctl show line: 'not a property'"),
    ],
)
def test_systemctl_show_garbage(output, message):
    with pytest.raises(HostProbeError) as exc:
        parse_systemctl_show(output)
    assert str(exc.value) == message


def absent():
    return {"installed": False, "held": False, "version": None}


def test_dpkg_query():
    assert parse_dpkg_query_details(DPKG_QUERY, ["munge", "slurmctld", "slurmd", "nosuch"]) == {
        "munge": {"installed": True, "held": False, "version": "0.5.15-2"},
        "slurmctld": {"installed": True, "held": False, "version": "22.05.8-4"},
        "slurmd": absent(),
        "nosuch": absent(),
    }


# The NVIDIA driver packages of a Debian 12 node with the CUDA repository, in the states dpkg can
# report them in: the pinned driver held (apt-mark hold), an older branch removed but its
# configuration kept, one purged but still known (empty ${Version}), one purged while held.
@pytest.mark.parametrize(
    "output, names, expected",
    [
        pytest.param(
            "nvidia-driver installed hold 535.261.03-1\n", ["nvidia-driver"],
            {"nvidia-driver": {"installed": True, "held": True, "version": "535.261.03-1"}},
            id="installed-held",
        ),
        pytest.param(
            "nvidia-kernel-dkms installed install 535.261.03-1\n", ["nvidia-kernel-dkms"],
            {"nvidia-kernel-dkms": {"installed": True, "held": False, "version": "535.261.03-1"}},
            id="installed",
        ),
        pytest.param(
            "nvidia-driver config-files deinstall 525.147.05-1\n", ["nvidia-driver"],
            {"nvidia-driver": absent()},
            id="config-files",
        ),
        pytest.param(
            "nvidia-driver config-files hold 525.147.05-1\n", ["nvidia-driver"],
            {"nvidia-driver": {"installed": False, "held": True, "version": None}},
            id="config-files-held",
        ),
        pytest.param(
            "nvidia-driver-bin not-installed purge \n", ["nvidia-driver-bin"],
            {"nvidia-driver-bin": absent()},
            id="not-installed-empty-version",
        ),
        pytest.param(
            "nvidia-driver-bin not-installed hold \n", ["nvidia-driver-bin"],
            {"nvidia-driver-bin": {"installed": False, "held": True, "version": None}},
            id="not-installed-held",
        ),
        pytest.param(
            "nvidia-driver-libs unpacked install 535.261.03-1\n", ["nvidia-driver-libs"],
            {"nvidia-driver-libs": absent()},
            id="unpacked-not-configured",
        ),
        pytest.param(
            "libnvidia-ml1:amd64 installed hold 535.261.03-1\nlibnvidia-ml1:i386 installed install 535.261.03-1\n",
            ["libnvidia-ml1"],
            {"libnvidia-ml1": {"installed": True, "held": True, "version": "535.261.03-1"}},
            id="multiarch",
        ),
        pytest.param(
            "libcuda1:i386 config-files deinstall 525.147.05-1\nlibcuda1:amd64 installed install 1:535.261.03-1\n",
            ["libcuda1"],
            {"libcuda1": {"installed": True, "held": False, "version": "1:535.261.03-1"}},
            id="multiarch-one-removed-with-epoch",
        ),
        pytest.param(
            "nvidia-driver installed hold 535.261.03-1\nnvidia-smi installed install 535.261.03-1\n",
            ["nvidia-driver", "cuda-drivers-535"],
            {"nvidia-driver": {"installed": True, "held": True, "version": "535.261.03-1"}, "cuda-drivers-535": absent()},
            id="missing-and-unasked",
        ),
        pytest.param("", ["nvidia-driver"], {"nvidia-driver": absent()}, id="nothing-known"),
        pytest.param("", [], {}, id="nothing-asked"),
    ],
)
def test_dpkg_query_details(output, names, expected):
    assert parse_dpkg_query_details(output, names) == expected


@pytest.mark.parametrize(
    "output, message",
    [
        ("what is this line\n", "unexpected dpkg-query line: 'what is this line'"),
        ("munge installed\n", "unexpected dpkg-query line: 'munge installed'"),
        ("munge installed install\n", "unexpected dpkg-query line: 'munge installed install'"),
        ("munge installed install 0.5.15-2 extra\n", "unexpected dpkg-query line: 'munge installed install 0.5.15-2 extra'"),
        ("munge install ok installed 0.5.15-2\n", "unexpected dpkg-query line: 'munge install ok installed 0.5.15-2'"),
        ("dpkg-query: no packages found matching nosuch\n", "unexpected dpkg-query line: 'dpkg-query: no packages found matching nosuch'"),
    ],
    ids=["words", "old-format", "installed-without-version", "five-fields", "status-abbrev-order", "stderr-text"],
)
def test_dpkg_query_garbage(output, message):
    with pytest.raises(HostProbeError) as exc:
        parse_dpkg_query_details("munge installed install 0.5.15-2\n" + output, ["munge"])
    assert str(exc.value) == message


# rpm -q --qf '%{NAME} %{EPOCHNUM} %{VERSION}-%{RELEASE}\n' NAMES on a Rocky 9 GPU node with the CUDA repository.
@pytest.mark.parametrize(
    "output, names, locked, expected",
    [
        pytest.param(
            "munge 0 0.5.13-13.el9\npackage slurm-slurmd is not installed\n", ["munge", "slurm-slurmd"], [],
            {"munge": {"installed": True, "held": False, "version": "0.5.13-13.el9"}, "slurm-slurmd": absent()},
            id="installed-and-missing",
        ),
        pytest.param(
            "nvidia-driver 3 535.154.05-1.el9\n", ["nvidia-driver"], ["nvidia-driver"],
            {"nvidia-driver": {"installed": True, "held": True, "version": "3:535.154.05-1.el9"}},
            id="epoch-held",
        ),
        pytest.param(
            "package nvidia-driver-cuda is not installed\n", ["nvidia-driver-cuda"], ["nvidia-driver-cuda"],
            {"nvidia-driver-cuda": {"installed": False, "held": True, "version": None}},
            id="held-not-installed",
        ),
        pytest.param(
            "nvidia-driver-libs 3 535.154.05-1.el9\nnvidia-driver-libs 3 535.154.05-1.el9\n", ["nvidia-driver-libs"], ["nvidia-*"],
            {"nvidia-driver-libs": {"installed": True, "held": True, "version": "3:535.154.05-1.el9"}},
            id="multilib-glob-lock",
        ),
        pytest.param(
            "kernel 0 5.14.0-362.8.1.el9_3\nkernel 0 5.14.0-427.13.1.el9_4\n", ["kernel"], ["nvidia-driver"],
            {"kernel": {"installed": True, "held": False, "version": "5.14.0-427.13.1.el9_4"}},
            id="installonly-last-listed",
        ),
        pytest.param(
            "nvidia-driver 3 535.154.05-1.el9\n", ["nvidia-driver"], ["nvidia-driver-cuda"],
            {"nvidia-driver": {"installed": True, "held": False, "version": "3:535.154.05-1.el9"}},
            id="other-package-locked",
        ),
        pytest.param("", [], ["nvidia-driver"], {}, id="nothing-asked"),
    ],
)
def test_rpm_query_details(output, names, locked, expected):
    assert parse_rpm_query_details(output, names, locked) == expected


def test_rpm_query_details_nothing_locked_by_default():
    assert parse_rpm_query_details("munge 0 0.5.13-13.el9\n", ["munge"]) == {
        "munge": {"installed": True, "held": False, "version": "0.5.13-13.el9"}}


@pytest.mark.parametrize(
    "output, message",
    [
        ("munge\n", "unexpected rpm line: 'munge'"),
        ("munge (none) 0.5.13-13.el9\n", "unexpected rpm line: 'munge (none) 0.5.13-13.el9'"),
        ("munge 0 0.5.13\n", "unexpected rpm line: 'munge 0 0.5.13'"),
        ("error: rpmdb: BDB0113 Thread/process 1234/0 failed\n", "unexpected rpm line: 'error: rpmdb: BDB0113 Thread/process 1234/0 failed'"),
    ],
    ids=["old-format", "epoch-not-a-number", "no-release", "error-text"],
)
def test_rpm_query_garbage(output, message):
    with pytest.raises(HostProbeError) as exc:
        parse_rpm_query_details(output, ["munge"])
    assert str(exc.value) == message


# /etc/dnf/plugins/versionlock.list as `dnf versionlock add` writes it, hand edits, and yum's format.
DNF_VERSIONLOCK = """
# Added lock on Tue Mar 12 10:14:03 2024
nvidia-driver-3:535.154.05-1.el9.*
nvidia-driver-cuda-libs-3:535.154.05-1.el9.*

# Added lock on Tue Mar 12 10:14:05 2024
kmod-nvidia-latest-dkms-3:535.154.05-1.el9.*
nvidia-driver-0:535.154.05-1.el9.x86_64

# Added exclude on Wed Mar 13 08:00:00 2024
!cuda-drivers-0:550.54.14-1.*
"""


@pytest.mark.parametrize(
    "content, expected",
    [
        pytest.param(DNF_VERSIONLOCK, ["nvidia-driver", "nvidia-driver-cuda-libs", "kmod-nvidia-latest-dkms"], id="dnf"),
        pytest.param("0:munge-0.5.11-4.el7.*\n3:nvidia-driver-535.154.05-1.el7.x86_64\n", ["munge", "nvidia-driver"], id="yum"),
        pytest.param("389-ds-base-0:1.4.3.39-8.module+el8.10.0+22077+bb2db2c6.x86_64\n", ["389-ds-base"], id="name-starts-with-digits"),
        pytest.param("nvidia-driver-535.154.05-1.el9.*\n", ["nvidia-driver"], id="no-epoch"),
        pytest.param("nvidia-driver\nnvidia-driver-cuda\nkernel-core-*\n", ["nvidia-driver", "nvidia-driver-cuda", "kernel-core-*"],
                     id="bare-names"),
        pytest.param("  nvidia-driver-3:535.154.05-1.el9.*  \n\t# indented comment\n", ["nvidia-driver"], id="whitespace"),
        pytest.param("# nothing locked yet\n\n", [], id="comments-only"),
        pytest.param("", [], id="empty"),
    ],
)
def test_versionlock_list(content, expected):
    assert parse_versionlock_list(content) == expected


# The module end to end, with stand-in dpkg-query and rpm scripts that print what the real ones did.
@pytest.fixture
def tools(monkeypatch, tmp_path):
    """Stand-ins for dpkg-query and rpm: {name: (stdout, rc)}; tools not in it are missing."""
    table = {}

    def get_bin_path(self, arg, required=False, opt_dirs=None):
        if arg not in table:
            return None
        path = tmp_path / arg
        (tmp_path / (arg + ".out")).write_text(table[arg][0])
        path.write_text("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s.args'\ncat '%s.out'\nexit %d\n" % (path, path, table[arg][1]))
        path.chmod(0o755)
        return str(path)

    monkeypatch.setattr(AnsibleModule, "get_bin_path", get_bin_path)
    monkeypatch.setattr(host_probe, "VERSIONLOCK_LISTS", (str(tmp_path / "dnf.list"), str(tmp_path / "yum.list")))
    return table


def probe(capsys, packages):
    with patch_module_args({"packages": packages}):
        with pytest.raises(SystemExit):
            host_probe.main()
    return json.loads(capsys.readouterr().out)


def test_module_dpkg(tools, tmp_path, capsys):
    tools["dpkg-query"] = ("nvidia-driver installed hold 535.261.03-1\nnvidia-driver-bin not-installed hold \n", 1)
    result = probe(capsys, ["nvidia-driver", "nvidia-driver-bin", "nosuch"])
    assert (tmp_path / "dpkg-query.args").read_text().splitlines() == [
        "-W", "-f", "${Package} ${db:Status-Status} ${db:Status-Want} ${Version}\\n", "nvidia-driver", "nvidia-driver-bin", "nosuch"]
    assert result["packages"] == {"nvidia-driver": True, "nvidia-driver-bin": False, "nosuch": False}
    assert result["package_versions"] == {"nvidia-driver": "535.261.03-1", "nvidia-driver-bin": None, "nosuch": None}
    assert result["package_holds"] == {"nvidia-driver": True, "nvidia-driver-bin": True, "nosuch": False}


@pytest.mark.parametrize("lists, holds", [
    ({}, {"nvidia-driver": False, "munge": False}),
    ({"yum.list": "0:munge-0.5.11-4.el7.*\n"}, {"nvidia-driver": False, "munge": True}),
    ({"dnf.list": "nvidia-driver-3:535.154.05-1.el9.*\n", "yum.list": "0:munge-0.5.11-4.el7.*\n"}, {"nvidia-driver": True, "munge": False}),
], ids=["no-list", "yum-list", "dnf-list-first"])
def test_module_rpm(tools, tmp_path, capsys, lists, holds):
    for name, content in lists.items():
        (tmp_path / name).write_text(content)
    tools["rpm"] = ("nvidia-driver 3 535.154.05-1.el9\npackage munge is not installed\n", 1)
    result = probe(capsys, ["nvidia-driver", "munge"])
    assert (tmp_path / "rpm.args").read_text().splitlines() == [
        "-q", "--qf", "%{NAME} %{EPOCHNUM} %{VERSION}-%{RELEASE}\\n", "nvidia-driver", "munge"]
    assert result["packages"] == {"nvidia-driver": True, "munge": False}
    assert result["package_versions"] == {"nvidia-driver": "3:535.154.05-1.el9", "munge": None}
    assert result["package_holds"] == holds


def test_module_no_packages_asked(tools, capsys):
    result = probe(capsys, [])
    assert (result["packages"], result["package_versions"], result["package_holds"]) == ({}, {}, {})


def test_module_garbage_fails_cleanly(tools, capsys):
    tools["dpkg-query"] = ("what is this line\n", 0)
    result = probe(capsys, ["munge"])
    assert result["failed"] is True
    assert result["msg"] == "host_probe: unexpected dpkg-query line: 'what is this line'"
