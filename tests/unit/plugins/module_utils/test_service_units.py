# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_units plan over systemctl show output (parsed by host_probe's parser)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.common._host_probe import parse_systemctl_show
from ansible_collections.gpuops.cluster.plugins.module_utils.common._service_units import (
    ServiceUnitsError,
    not_running,
    plan,
    unit_arg,
)

# systemctl show -p Id -p LoadState -p ActiveState -p UnitFileState munge.service slurmd.service nope.service,
# on a Debian 12 node right after apt installed munge and slurmd (munge started by its package, slurmd
# failed), and a unit systemd does not know.
SHOW = """Id=munge.service
LoadState=loaded
ActiveState=active
UnitFileState=enabled

Id=slurmd.service
LoadState=loaded
ActiveState=failed
UnitFileState=disabled

Id=nope.service
LoadState=not-found
ActiveState=inactive
UnitFileState=
"""


def test_plan_starts_and_enables_only_what_needs_it():
    found = parse_systemctl_show(SHOW)
    todo = plan(["munge", "slurmd"], found)
    assert todo == {"missing": [], "enable": ["slurmd"], "start": ["slurmd"],
                    "changes": ["slurmd: enabled", "slurmd: started (was failed)"]}


def test_plan_without_enable():
    todo = plan(["slurmd.service"], parse_systemctl_show(SHOW), enabled=False)
    assert todo["enable"] == [] and todo["start"] == ["slurmd.service"]


def test_unknown_units_are_missing():
    todo = plan(["munge", "nope", "ghost"], parse_systemctl_show(SHOW))
    assert todo["missing"] == ["nope", "ghost"]
    assert todo["changes"] == []


def test_running_and_enabled_is_nothing_to_do():
    assert plan(["munge"], parse_systemctl_show(SHOW))["changes"] == []


def test_not_running():
    assert not_running(["munge", "slurmd", "ghost"], parse_systemctl_show(SHOW)) == ["slurmd", "ghost"]


def test_unit_arg():
    assert unit_arg("munge") == "munge.service"
    assert unit_arg("slurmd.service") == "slurmd.service"
    assert unit_arg("nvidia-persistenced.socket") == "nvidia-persistenced.socket"


@pytest.mark.parametrize("names, message", [
    ([], "names must be a non-empty list of systemd unit names, got []"),
    (["munge", "munge.service"], "unit munge.service is listed twice"),
    (["--now"], "'--now' is not a systemd unit name (letters, digits, : _ . @ -)"),
    (["a b"], "'a b' is not a systemd unit name (letters, digits, : _ . @ -)"),
    ([None], "None is not a systemd unit name (letters, digits, : _ . @ -)"),
])
def test_bad_names(names, message):
    with pytest.raises(ServiceUnitsError) as err:
        plan(names, {})
    assert str(err.value) == message
