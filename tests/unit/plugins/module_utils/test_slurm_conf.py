# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_conf import (
    Repeated,
    CGROUP_CONF_KEYS,
    REMOVED_KEYS,
    SLURM_CONF_KEYS,
    SLURM_CONF_LINE_TYPES,
    SlurmConfError,
    check_keys,
    render_lines,
    series_for,
)

TASK_AFFINITY_HINT = "use TaskPlugin=task/affinity,task/cgroup in slurm.conf instead"
LINE_TYPE_TAIL = (
    " is a slurm.conf line type (node and partition definitions), not a setting; "
    "nodes and partitions come from the inventory (slurm_partitions and the "
    "slurm_compute group); remove it."
)


# --- the catalogue itself ---------------------------------------------------


@pytest.mark.parametrize(
    "catalogue, series, count",
    [
        (SLURM_CONF_KEYS, "22.05", 209),
        (SLURM_CONF_KEYS, "24.11", 206),
        (CGROUP_CONF_KEYS, "22.05", 19),
        (CGROUP_CONF_KEYS, "24.11", 17),
        (SLURM_CONF_KEYS, "26.05", 223),
        (CGROUP_CONF_KEYS, "26.05", 20),
    ],
)
def test_catalogue_sizes(catalogue, series, count):
    assert len(catalogue[series]) == count


def test_catalogues_cover_the_same_series():
    assert sorted(SLURM_CONF_KEYS) == sorted(CGROUP_CONF_KEYS) == ["22.05", "24.11", "26.05"]


@pytest.mark.parametrize(
    "catalogue",
    [SLURM_CONF_KEYS["22.05"], SLURM_CONF_KEYS["24.11"], SLURM_CONF_KEYS["26.05"],
     CGROUP_CONF_KEYS["22.05"], CGROUP_CONF_KEYS["24.11"], CGROUP_CONF_KEYS["26.05"]],
)
def test_catalogue_names_are_unique_identifiers(catalogue):
    assert all(re.match(r"^[A-Za-z][A-Za-z0-9_]*$", name) for name in catalogue)
    lowered = [name.lower() for name in catalogue]
    assert len(lowered) == len(set(lowered))


@pytest.mark.parametrize("series", ["22.05", "24.11", "26.05"])
def test_line_types_are_not_plain_keys(series):
    lowered = set(name.lower() for name in SLURM_CONF_KEYS[series])
    assert not lowered & set(name.lower() for name in SLURM_CONF_LINE_TYPES)


@pytest.mark.parametrize(
    "catalogue, key, present",
    [
        (SLURM_CONF_KEYS["22.05"], "SlurmctldHost", True),
        (SLURM_CONF_KEYS["24.11"], "SlurmctldHost", True),
        (SLURM_CONF_KEYS["22.05"], "ExtSensorsType", True),
        (SLURM_CONF_KEYS["24.11"], "ExtSensorsType", False),
        (SLURM_CONF_KEYS["24.11"], "DataParserParameters", True),
        (SLURM_CONF_KEYS["22.05"], "DataParserParameters", False),
        # Deprecated but still documented (and parsed) in both releases.
        (SLURM_CONF_KEYS["24.11"], "ControlMachine", True),
        (CGROUP_CONF_KEYS["22.05"], "CgroupAutomount", True),
        (CGROUP_CONF_KEYS["24.11"], "CgroupAutomount", False),
        (CGROUP_CONF_KEYS["24.11"], "EnableControllers", True),
        (CGROUP_CONF_KEYS["22.05"], "TaskAffinity", False),
        # 25.11 renamed JobContainerType NamespaceType, and removed AccountingStorageUser.
        (SLURM_CONF_KEYS["26.05"], "NamespaceType", True),
        (SLURM_CONF_KEYS["26.05"], "JobContainerType", False),
        (SLURM_CONF_KEYS["24.11"], "NamespaceType", False),
        (SLURM_CONF_KEYS["26.05"], "AccountingStorageUser", False),
        (SLURM_CONF_KEYS["26.05"], "TLSType", True),
        (SLURM_CONF_KEYS["26.05"], "SlurmdPidFile", True),
        (CGROUP_CONF_KEYS["26.05"], "CgroupAutomount", False),
        (CGROUP_CONF_KEYS["26.05"], "EnableExtraControllers", True),
    ],
)
def test_catalogue_membership(catalogue, key, present):
    assert (key in catalogue) is present


@pytest.mark.parametrize(
    "kind, catalogue", [("slurm.conf", SLURM_CONF_KEYS), ("cgroup.conf", CGROUP_CONF_KEYS)]
)
def test_removed_keys_agree_with_the_catalogues(kind, catalogue):
    for key, (removed_in, hint) in REMOVED_KEYS[kind].items():
        assert re.match(r"^\d\d\.\d\d$", removed_in), key
        assert hint and not hint.endswith("."), key
        removed = tuple(int(part) for part in removed_in.split("."))
        # Documented by every catalogued release before the one that removed it, by none from it on.
        for series, keys in catalogue.items():
            assert (key in keys) is (tuple(int(part) for part in series.split(".")) < removed), (key, series)


@pytest.mark.parametrize(
    "kind, catalogue", [("slurm.conf", SLURM_CONF_KEYS), ("cgroup.conf", CGROUP_CONF_KEYS)]
)
def test_every_key_dropped_between_the_series_is_listed_as_removed(kind, catalogue):
    dropped = (catalogue["22.05"] - catalogue["24.11"]) | (catalogue["24.11"] - catalogue["26.05"])
    assert dropped <= set(REMOVED_KEYS[kind])


# --- series_for ---------------------------------------------------------------


@pytest.mark.parametrize(
    "version, series",
    [
        ("22.05", "22.05"),
        ("22.05.8", "22.05"),
        ("22.05.11", "22.05"),
        ("23.02.7", "22.05"),
        ("23.11.4", "22.05"),
        ("24.05.5", "22.05"),
        ("24.11", "24.11"),
        ("24.11.5", "24.11"),
        ("24.11.0rc1", "24.11"),
        ("25.05.1", "24.11"),
        ("25.11.2", "24.11"),
        ("26.05", "26.05"),
        ("26.05.3-1", "26.05"),
        (" 24.11.5 ", "24.11"),
        ("slurm 22.05.8", "22.05"),
        ("slurm-wlm 24.11.5", "24.11"),
        ("22.05.8-4+deb12u3", "22.05"),
        ("24.11.5-4", "24.11"),
    ],
)
def test_series_for(version, series):
    assert series_for(version) == series


@pytest.mark.parametrize(
    "version, message",
    [
        ("21.08.8",
         "Slurm 21.08 (from '21.08.8') is older than the oldest catalogued series 22.05; "
         "supported series are 22.05, 24.11, 26.05"),
        ("17.11",
         "Slurm 17.11 (from '17.11') is older than the oldest catalogued series 22.05; "
         "supported series are 22.05, 24.11, 26.05"),
        ("",
         "cannot read a Slurm version from ''; expected something like '24.11.5' or '22.05'"),
        ("latest",
         "cannot read a Slurm version from 'latest'; expected something like '24.11.5' or '22.05'"),
        ("24",
         "cannot read a Slurm version from '24'; expected something like '24.11.5' or '22.05'"),
        ("v24.11",
         "cannot read a Slurm version from 'v24.11'; expected something like '24.11.5' or '22.05'"),
        (24.11,
         "Slurm version must be a string such as '24.11.5' or '22.05', got 24.11 (quote it in YAML)"),
        (None,
         "Slurm version must be a string such as '24.11.5' or '22.05', got None (quote it in YAML)"),
    ],
)
def test_series_for_errors(version, message):
    with pytest.raises(SlurmConfError) as excinfo:
        series_for(version)
    assert str(excinfo.value) == message


# --- check_keys -------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, kind, version, varname",
    [
        ({}, "slurm.conf", "22.05", "slurm_config"),
        (None, "cgroup.conf", "24.11.5", "slurm_cgroup_config"),
        ({"ClusterName": "c", "SlurmctldPort": 6817, "TaskPlugin": "task/cgroup"},
         "slurm.conf", "22.05.8", "slurm_config"),
        # Slurm keys are case-insensitive.
        ({"clustername": "c", "SLURMCTLDPORT": 6817, "taskPlugin": "task/cgroup"},
         "slurm.conf", "24.11.5", "slurm_config"),
        ({"constraincores": True, "CONSTRAINRAMSPACE": True}, "cgroup.conf", "24.11", "v"),
        # Still valid in 22.05, removed only later.
        ({"CgroupAutomount": True, "ConstrainKmemSpace": False}, "cgroup.conf", "22.05.8", "v"),
        ({"ConstrainKmemSpace": False}, "cgroup.conf", "23.02.7", "v"),
        ({"LaunchType": "launch/slurm", "ExtSensorsType": "ext_sensors/none"},
         "slurm.conf", "22.05", "v"),
        # Deprecated, but still documented and accepted by both releases.
        ({"ControlMachine": "head"}, "slurm.conf", "24.11", "v"),
        # Keys new in 24.11.
        ({"SystemdTimeout": 1000, "EnableControllers": True}, "cgroup.conf", "24.11", "v"),
        ({"DataParserParameters": "v0.0.42"}, "slurm.conf", "25.05.1", "v"),
    ],
)
def test_check_keys_accepts(settings, kind, version, varname):
    assert check_keys(settings, kind, version, varname) == []


@pytest.mark.parametrize(
    "settings, kind, version, varname, expected",
    [
        # TaskAffinity is rejected on both catalogued series.
        ({"TaskAffinity": True}, "cgroup.conf", "24.11.5", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'TaskAffinity' was removed in Slurm 21.08 and is rejected by "
          "the installed Slurm 24.11; remove it (" + TASK_AFFINITY_HINT + ")."]),
        ({"TaskAffinity": True}, "cgroup.conf", "22.05.8", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'TaskAffinity' was removed in Slurm 21.08 and is rejected by "
          "the installed Slurm 22.05; remove it (" + TASK_AFFINITY_HINT + ")."]),
        # Matched without regard to case, reported as written.
        ({"taskaffinity": "no"}, "cgroup.conf", "22.05", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'taskaffinity' was removed in Slurm 21.08 and is rejected by "
          "the installed Slurm 22.05; remove it (" + TASK_AFFINITY_HINT + ")."]),
        # Valid in 22.05, removed by 24.11.
        ({"CgroupAutomount": True}, "cgroup.conf", "24.11.5", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'CgroupAutomount' was removed in Slurm 23.11 and is rejected "
          "by the installed Slurm 24.11; remove it (with cgroup/v2 use EnableControllers=yes "
          "if controllers must be enabled)."]),
        ({"ExtSensorsType": "ext_sensors/none"}, "slurm.conf", "24.11.5", "slurm_config",
         ["slurm_config: 'ExtSensorsType' was removed in Slurm 24.11 and is rejected by the "
          "installed Slurm 24.11; remove it (it is documented by Slurm 22.05 but no longer by "
          "Slurm 24.11)."]),
        # Removed in 23.11: rejected on 23.11 although its checks use the 22.05 catalogue.
        ({"ConstrainKmemSpace": False}, "cgroup.conf", "23.11.4", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'ConstrainKmemSpace' was removed in Slurm 23.11 and is "
          "rejected by the installed Slurm 23.11; remove it (kernel memory limits are gone)."]),
        ({"LaunchType": "launch/slurm"}, "slurm.conf", "23.02.7", "slurm_config",
         ["slurm_config: 'LaunchType' was removed in Slurm 23.02 and is rejected by the "
          "installed Slurm 23.02; remove it (the launch plugin type no longer exists)."]),
        # Removed long before 22.05.
        ({"FastSchedule": 1}, "slurm.conf", "22.05.8", "slurm_config",
         ["slurm_config: 'FastSchedule' was removed in Slurm 20.02 and is rejected by the "
          "installed Slurm 22.05; remove it (for the old FastSchedule=2 behaviour use "
          "SlurmdParameters=config_overrides)."]),
        ({"KeepAliveTime": 60}, "slurm.conf", "22.05", "slurm_config",
         ["slurm_config: 'KeepAliveTime' was removed in Slurm 22.05 and is rejected by the "
          "installed Slurm 22.05; remove it (use CommunicationParameters=keepalivetime=<seconds> "
          "instead)."]),
        # Misspelt keys, with and without a suggestion.
        ({"SlurmctlPort": 6817}, "slurm.conf", "22.05", "slurm_config",
         ["slurm_config: 'SlurmctlPort' is not a slurm.conf key in Slurm 22.05; fix the spelling "
          "or remove it (did you mean 'SlurmctldPort'?)"]),
        ({"constrainramspce": True}, "cgroup.conf", "24.11.5", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'constrainramspce' is not a cgroup.conf key in Slurm 24.11; fix "
          "the spelling or remove it (did you mean 'ConstrainRAMSpace'?)"]),
        ({"Frobnicate": 1}, "slurm.conf", "24.11", "slurm_config",
         ["slurm_config: 'Frobnicate' is not a slurm.conf key in Slurm 24.11; fix the spelling "
          "or remove it"]),
        # Checked against the older catalogue: the message says so.
        ({"Frobnicate": 1}, "slurm.conf", "23.11.4", "slurm_config",
         ["slurm_config: 'Frobnicate' is not a slurm.conf key in Slurm 22.05 (the catalogue "
          "used for the installed 23.11); fix the spelling or remove it"]),
        # A cgroup.conf key in slurm.conf and the other way round.
        ({"ConstrainCores": True}, "slurm.conf", "24.11", "slurm_config",
         ["slurm_config: 'ConstrainCores' is a cgroup.conf key, not a slurm.conf key; move it "
          "to the cgroup.conf settings."]),
        ({"taskplugin": "task/cgroup"}, "cgroup.conf", "22.05", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'taskplugin' is a slurm.conf key, not a cgroup.conf key; move "
          "it to the slurm.conf settings."]),
        # A far-fetched match is not offered ('controlmachine' scores 0.64).
        ({"ConstrainCore": True}, "slurm.conf", "24.11", "slurm_config",
         ["slurm_config: 'ConstrainCore' is not a slurm.conf key in Slurm 24.11; fix the "
          "spelling or remove it"]),
        # Line types.
        ({"NodeName": "gpu[01-04]"}, "slurm.conf", "24.11", "slurm_config",
         ["slurm_config: 'NodeName'" + LINE_TYPE_TAIL]),
        ({"partitionname": "batch"}, "slurm.conf", "22.05", "slurm_config",
         ["slurm_config: 'partitionname'" + LINE_TYPE_TAIL]),
        # Only slurm.conf has line types.
        ({"NodeName": "x"}, "cgroup.conf", "24.11", "slurm_cgroup_config",
         ["slurm_cgroup_config: 'NodeName' is not a cgroup.conf key in Slurm 24.11; fix the "
          "spelling or remove it"]),
        # The same key twice, in different case.
        ({"SlurmctldPort": 6817, "slurmctldport": 6820}, "slurm.conf", "24.11", "slurm_config",
         ["slurm_config: 'SlurmctldPort' and 'slurmctldport' are the same key to Slurm (keys "
          "are not case-sensitive); keep only one of them."]),
    ],
)
def test_check_keys_rejects(settings, kind, version, varname, expected):
    assert check_keys(settings, kind, version, varname) == expected


def test_check_keys_reports_every_bad_key_sorted():
    settings = {
        "ClusterName": "c",
        "SlurmctlPort": 6817,
        "NodeSet": "gpus",
        "FastSchedule": 1,
        "CacheGroups": 0,
    }
    assert check_keys(settings, "slurm.conf", "24.11.5", "slurm_config") == [
        "slurm_config: 'CacheGroups' was removed in Slurm 16.05 and is rejected by the "
        "installed Slurm 24.11; remove it (group lists are always cached; tune "
        "GroupUpdateTime and GroupUpdateForce instead).",
        "slurm_config: 'FastSchedule' was removed in Slurm 20.02 and is rejected by the "
        "installed Slurm 24.11; remove it (for the old FastSchedule=2 behaviour use "
        "SlurmdParameters=config_overrides).",
        "slurm_config: 'NodeSet'" + LINE_TYPE_TAIL,
        "slurm_config: 'SlurmctlPort' is not a slurm.conf key in Slurm 24.11; fix the "
        "spelling or remove it (did you mean 'SlurmctldPort'?)",
    ]


@pytest.mark.parametrize("key", sorted(SLURM_CONF_LINE_TYPES))
def test_every_line_type_is_rejected(key):
    assert check_keys({key: "x"}, "slurm.conf", "22.05", "slurm_config") == [
        "slurm_config: '%s'%s" % (key, LINE_TYPE_TAIL)
    ]


@pytest.mark.parametrize("series", ["22.05", "24.11"])
@pytest.mark.parametrize("kind, catalogue", [("slurm.conf", SLURM_CONF_KEYS),
                                             ("cgroup.conf", CGROUP_CONF_KEYS)])
def test_every_catalogued_key_is_accepted_by_its_series(series, kind, catalogue):
    settings = dict((key, "x") for key in catalogue[series])
    assert check_keys(settings, kind, series, "v") == []


@pytest.mark.parametrize(
    "settings, kind, version, message",
    [
        ({}, "gres.conf", "24.11",
         "unknown configuration file kind 'gres.conf'; use one of cgroup.conf, slurm.conf"),
        (["ClusterName"], "slurm.conf", "24.11",
         "slurm_config must be a dictionary of Slurm settings, got list"),
        ({}, "slurm.conf", "21.08",
         "Slurm 21.08 (from '21.08') is older than the oldest catalogued series 22.05; "
         "supported series are 22.05, 24.11, 26.05"),
        ({}, "slurm.conf", "next",
         "cannot read a Slurm version from 'next'; expected something like '24.11.5' or '22.05'"),
    ],
)
def test_check_keys_errors(settings, kind, version, message):
    with pytest.raises(SlurmConfError) as excinfo:
        check_keys(settings, kind, version, "slurm_config")
    assert str(excinfo.value) == message


# --- render_lines -----------------------------------------------------------


@pytest.mark.parametrize(
    "settings, lines",
    [
        ({}, []),
        (None, []),
        ({"ConstrainCores": True, "ConstrainSwapSpace": False},
         ["ConstrainCores=yes", "ConstrainSwapSpace=no"]),
        ({"SlurmctldPort": 6817, "AllowedRAMSpace": 98.5},
         ["AllowedRAMSpace=98.5", "SlurmctldPort=6817"]),
        ({"TaskPlugin": ["task/cgroup", "task/affinity"]},
         ["TaskPlugin=task/cgroup,task/affinity"]),
        ({"PrologFlags": ("Alloc", "Contain")}, ["PrologFlags=Alloc,Contain"]),
        ({"Flags": [True, 3, " a "]}, ["Flags=yes,3,a"]),
        ({"ClusterName": "  gpu  "}, ["ClusterName=gpu"]),
        ({"SlurmctldParameters": None, "ClusterName": "gpu"}, ["ClusterName=gpu"]),
        ({"Empty": ""}, ["Empty="]),
        # Sorted without regard to case.
        ({"slurmUser": "slurm", "AuthType": "auth/munge", "SelectType": "select/cons_tres",
          "authAltTypes": "auth/jwt"},
         ["authAltTypes=auth/jwt", "AuthType=auth/munge", "SelectType=select/cons_tres",
          "slurmUser=slurm"]),
        ({"SlurmctldHost": "head(10.0.0.1)"}, ["SlurmctldHost=head(10.0.0.1)"]),
    ],
)
def test_render_lines(settings, lines):
    assert render_lines(settings) == lines


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"ClusterName": "gpu\nNodeName=evil"},
         "the value of Slurm key 'ClusterName' contains a newline, which would end the line in "
         "the configuration file; put it on one line"),
        ({"TaskPlugin": ["task/cgroup", "task/\raffinity"]},
         "the value of Slurm key 'TaskPlugin' contains a newline, which would end the line in "
         "the configuration file; put it on one line"),
        ({"SchedulerParameters": {"bf_continue": True}},
         "cannot render 'dict' for Slurm key 'SchedulerParameters': use a string, number, "
         "boolean or a list of those"),
        ({"TaskPlugin": [["task/cgroup"]]},
         "cannot render 'list' for Slurm key 'TaskPlugin': use a string, number, boolean or a "
         "list of those"),
        ({"Bad Key": 1},
         "'Bad Key' is not a usable Slurm key: it must be non-empty, without spaces, control characters, '=' or '#'"),
        ({"A=B": 1},
         "'A=B' is not a usable Slurm key: it must be non-empty, without spaces, control characters, '=' or '#'"),
        ({"": 1},
         "'' is not a usable Slurm key: it must be non-empty, without spaces, control characters, '=' or '#'"),
        ({"Slurm\x00Key": 1},
         "'Slurm\\x00Key' is not a usable Slurm key: it must be non-empty, without spaces, control characters, "
         "'=' or '#'"),
        ({"K" * 300: [1, None]},
         "cannot render 'NoneType' for Slurm key '%s...': use a string, number, boolean or a list of those" % ("K" * 100)),
        ({"ClusterName": "gpu\x00lab"},
         "the value of Slurm key 'ClusterName' contains a NUL character, where Slurm would stop reading the line; "
         "remove it"),
        ({"MaxJobCount": 10 ** 5000},
         "the number given for Slurm key 'MaxJobCount' has more than 18 digits; Slurm reads none that long"),
        ("ClusterName=gpu",
         "Slurm settings must be a dictionary of Slurm settings, got str"),
    ],
)
def test_render_lines_errors(settings, message):
    with pytest.raises(SlurmConfError) as excinfo:
        render_lines(settings)
    assert str(excinfo.value) == message


def test_a_repeated_key_gives_one_line_per_value_in_its_order():
    # SlurmctldHost: the primary first, then the backups (slurm.conf(5)), among the sorted keys.
    lines = render_lines({"SlurmctldPort": 6817, "SlurmctldHost": Repeated(["zeta(10.0.0.9)", "alpha", "mid"]),
                          "ClusterName": "c"})
    assert lines == ["ClusterName=c", "SlurmctldHost=zeta(10.0.0.9)", "SlurmctldHost=alpha", "SlurmctldHost=mid",
                     "SlurmctldPort=6817"]
    assert render_lines({"SlurmctldHost": Repeated(["one"])}) == render_lines({"SlurmctldHost": "one"})
    assert render_lines({"SlurmctldHost": Repeated([])}) == []


def test_a_repeated_value_is_checked_like_any_other():
    with pytest.raises(SlurmConfError, match="newline"):
        render_lines({"SlurmctldHost": Repeated(["a", "b\nc"])})


# --- what each release refuses: renamed keys, removed plugin values, later keys --------


@pytest.mark.parametrize(
    "settings, version, expected",
    [
        ({"JobContainerType": "job_container/tmpfs"}, "26.05.3",
         ["slurm_config: 'JobContainerType' was removed in Slurm 25.11 and is rejected by the installed Slurm "
          "26.05; remove it (it was renamed: use NamespaceType (job_container/tmpfs is now namespace/linux, "
          "configured in namespace.yaml))."]),
        ({"AccountingStorageUser": "slurm"}, "26.05", [
            "slurm_config: 'AccountingStorageUser' was removed in Slurm 25.11 and is rejected by the installed Slurm "
            "26.05; remove it (slurmdbd's database user is StorageUser in slurmdbd.conf (slurm_dbd_db_user))."]),
        ({"SelectType": "select/cons_res"}, "24.11", [
            "slurm_config: SelectType=select/cons_res was removed in Slurm 23.11 and is rejected by the installed "
            "Slurm 24.11 (use select/cons_tres, which also schedules GPUs)."]),
        ({"TaskPlugin": "task/affinity, task/none"}, "26.05", [
            "slurm_config: TaskPlugin=task/none was removed in Slurm 23.11 and is rejected by the installed Slurm "
            "26.05 (Slurm 23.11 removed the 'none' plugins: leave the key out for no plugin)."]),
        ({"NamespaceType": "namespace/linux"}, "24.11", [
            "slurm_config: 'NamespaceType' is not a slurm.conf key in Slurm 24.11: it came in a later release "
            "(documented by Slurm 26.05); remove it, or install that release (slurm_install_from: source)"]),
    ],
)
def test_what_a_release_refuses(settings, version, expected):
    assert check_keys(settings, "slurm.conf", version, "slurm_config") == expected


@pytest.mark.parametrize(
    "settings, version",
    [
        ({"JobContainerType": "job_container/tmpfs"}, "24.11.5"),
        ({"SelectType": "select/cons_res"}, "22.05.8"),
        ({"SelectType": "select/cons_tres", "NamespaceType": "namespace/linux", "TLSType": "tls/none"}, "26.05"),
        ({"SwitchType": ["switch/hpe_slingshot"]}, "26.05"),
    ],
)
def test_what_a_release_still_accepts(settings, version):
    assert check_keys(settings, "slurm.conf", version, "slurm_config") == []
