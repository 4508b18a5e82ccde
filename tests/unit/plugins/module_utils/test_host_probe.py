# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of host_probe, over output captured in the Debian 12 lab controller
(systemd 252, dpkg 1.21) after the Slurm converge."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils._host_probe import (
    HostProbeError,
    parse_dpkg_query,
    parse_rpm_query,
    parse_systemctl_show,
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

# dpkg-query -W -f '${Package} ${db:Status-Status}\n' munge slurmctld slurmd nosuch  (rc 1; stderr names slurmd, nosuch)
DPKG_QUERY = "munge installed\nslurmctld installed\n"


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


def test_dpkg_query():
    assert parse_dpkg_query(DPKG_QUERY, ["munge", "slurmctld", "slurmd", "nosuch"]) == {
        "munge": True, "slurmctld": True, "slurmd": False, "nosuch": False,
    }


def test_dpkg_query_removed_package_and_arch_qualifier():
    out = "slurmd config-files\nlibpmix2:amd64 installed\n"
    assert parse_dpkg_query(out, ["slurmd", "libpmix2"]) == {"slurmd": False, "libpmix2": True}


def test_dpkg_query_garbage():
    with pytest.raises(HostProbeError) as exc:
        parse_dpkg_query("what is this line\n", ["munge"])
    assert str(exc.value) == "unexpected dpkg-query line: 'what is this line'"


def test_rpm_query():
    out = "munge\npackage slurm-slurmd is not installed\n"
    assert parse_rpm_query(out, ["munge", "slurm-slurmd"]) == {"munge": True, "slurm-slurmd": False}
