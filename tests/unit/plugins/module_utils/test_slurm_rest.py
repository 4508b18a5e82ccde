# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm's own interfaces by release: slurmrestd with JWT, native metrics (module_utils/slurm/_slurm_rest.py),
and how the cluster model, the munge key's rule, the Slurm exporter and the Prometheus plan use them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._alert_rules import alert_rules
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._monitoring import (
    native_scrape_config,
    prometheus_config,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import (
    NATIVE_FAMILIES,
    PREFIX,
    slurm_samples,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._munge_key import munge_key_plan
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import bundle_handlers, build_model
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_rest import (
    DATA_PARSERS,
    NATIVE_ENDPOINTS,
    conf_has_native_metrics,
    data_parsers,
    metrics_conf,
    native_metrics_available,
    rest_command,
    rest_conf,
    rest_errors,
    rest_listen,
)

from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils.test_slurm_model import SETTINGS, _inventory

REST = {"enabled": True, "hosts": ["ctl"], "listen": ["localhost:6820"], "allow_remote": False, "data_parsers": [],
        "jwt_key_length": 0, "jwt_max_token_lifespan": 86400, "user_tokens": True}


def _rest(**changes):
    rest = copy.deepcopy(REST)
    rest.update(changes)
    return rest


# --- the release table ----------------------------------------------------------------

@pytest.mark.parametrize("series, expected", [
    ("24.05", ["v0.0.39", "v0.0.40", "v0.0.41"]),
    ("24.11", ["v0.0.40", "v0.0.41", "v0.0.42"]),     # Debian 13's slurmrestd 24.11.5: data_parser_v0_0_4{0,1,2}.so
    ("24.11.5", ["v0.0.40", "v0.0.41", "v0.0.42"]),
    ("25.11", ["v0.0.42", "v0.0.43", "v0.0.44"]),
    ("26.05.3", ["v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]),  # src/plugins/data_parser of the 26.05.3 tarball
    ("22.05", None),
    ("27.05", None),
    ("", None),
    (None, None),
    ("garbage", None),
])
def test_data_parsers_by_release(series, expected):
    assert data_parsers(series) == expected


def test_each_release_keeps_three_or_four_versions_and_drops_the_oldest():
    releases = sorted(DATA_PARSERS)
    for older, newer in zip(releases, releases[1:]):
        assert DATA_PARSERS[newer][-1] > DATA_PARSERS[older][-1]
        assert 3 <= len(DATA_PARSERS[newer]) <= 4


@pytest.mark.parametrize("series, expected", [
    ("22.05", False), ("24.11", False), ("25.05", False), ("25.11", True), ("26.05", True), ("26.05.3", True),
    (None, False), ("x", False),
])
def test_native_metrics_came_with_25_11(series, expected):
    assert native_metrics_available(series) is expected


# --- the REST settings' checks ---------------------------------------------------------

def test_good_settings_and_off_give_nothing():
    assert rest_errors(REST, "26.05") == []
    assert rest_errors(_rest(enabled=False, listen="garbage", data_parsers=["v9"]), "22.05") == []


@pytest.mark.parametrize("changes, series, words", [
    ({}, "22.05", "this cluster runs Slurm 22.05"),
    ({}, None, "of an unknown release"),
    ({"listen": ["0.0.0.0:6820"]}, "26.05", "slurm_rest_listen has 0.0.0.0:6820, an address other hosts reach"),
    ({"listen": [":6820"]}, "26.05", "slurm_rest_listen has :6820"),
    ({"listen": ["ctl.example.org:6820"]}, "26.05", "slurm_rest_allow_remote: true"),
    ({"listen": ["localhost"]}, "26.05", "has no port"),
    ({"listen": ["localhost:70000"]}, "26.05", "has no port"),
    ({"listen": ["unix:run/x.sock"]}, "26.05", "a socket is unix:/absolute/path"),
    ({"listen": []}, "26.05", "give a list of host:port"),
    ({"listen": "localhost:6820"}, "26.05", "give a list of host:port"),
    ({"listen": ["a b:1"]}, "26.05", "is not an address:port"),
    ({"allow_remote": "yes"}, "26.05", "slurm_rest_allow_remote is 'yes'"),
    ({"data_parsers": ["v0.0.40"]}, "26.05", "names v0.0.40, which Slurm 26.05 lacks: it has v0.0.42, v0.0.43"),
    ({"data_parsers": ["0.0.44"]}, "26.05", "is not a data_parser version"),
    ({"data_parsers": "v0.0.44"}, "26.05", "slurm_rest_data_parsers is 'v0.0.44'"),
    ({}, "27.05", "newer than the collection's table"),
    ({"jwt_max_token_lifespan": 10}, "26.05", "slurm_jwt_max_token_lifespan is 10"),
    ({"jwt_max_token_lifespan": True}, "26.05", "slurm_jwt_max_token_lifespan is True"),
    ({"jwt_max_token_lifespan": "1d"}, "26.05", "slurm_jwt_max_token_lifespan is '1d'"),
    ({"user_tokens": "no"}, "26.05", "slurm_jwt_user_tokens is 'no'"),
    ({"jwt_key_length": 12}, "26.05", "slurm_jwt_key holds 12 bytes"),
    ({"hosts": []}, "26.05", "slurmrestd has no host"),
    ({"enabled": "yes"}, "26.05", "slurm_rest_enabled is 'yes'"),
])
def test_bad_settings_name_the_variable_and_the_fix(changes, series, words):
    errors = rest_errors(_rest(**changes), series)
    assert any(words in error for error in errors), errors


@pytest.mark.parametrize("listen", [
    ["localhost:6820"], ["127.0.0.1:6820"], ["[::1]:6820"], ["unix:/run/slurmrestd/slurmrestd.socket"],
    ["localhost:6820", "unix:/run/slurmrestd.sock"],
])
def test_local_listen_addresses_need_no_setting(listen):
    assert rest_errors(_rest(listen=listen), "26.05") == []


def test_a_remote_address_with_the_explicit_setting_is_taken():
    assert rest_errors(_rest(listen=["10.0.0.1:6820"], allow_remote=True), "26.05") == []


def test_an_unknown_newer_release_takes_the_versions_named():
    assert rest_errors(_rest(data_parsers=["v0.0.46"]), "27.05") == []


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(REST) + ["other"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20),
                                 st.lists(st.one_of(st.text(max_size=12), st.integers()), max_size=3))),
       st.one_of(st.none(), st.text(max_size=8), st.sampled_from(sorted(DATA_PARSERS))))
def test_any_settings_give_messages_never_an_exception(rest, series):
    rest = dict(rest, enabled=True)
    errors = rest_errors(rest, series)
    assert isinstance(errors, list) and all(isinstance(error, str) for error in errors)


# --- what the settings write ------------------------------------------------------------

def test_slurm_conf_keys_and_slurmrestd_options():
    assert rest_conf(REST, "/etc/slurm/jwt_hs256.key") == {
        "AuthAltTypes": "auth/jwt", "AuthAltParameters": "jwt_key=/etc/slurm/jwt_hs256.key,max_token_lifespan=86400"}
    assert rest_conf(_rest(user_tokens=False), "/k")["AuthAltParameters"] == \
        "jwt_key=/k,max_token_lifespan=86400,disable_token_creation"
    assert rest_conf(_rest(enabled=False), "/k") == {}
    assert rest_command(REST, "26.05", True) == "-a rest_auth/jwt -s slurmctld,slurmdbd -d v0.0.42,v0.0.43,v0.0.44,v0.0.45"
    assert rest_command(_rest(data_parsers=["v0.0.44"]), "26.05", False) == "-a rest_auth/jwt -s slurmctld -d v0.0.44"
    assert rest_listen(_rest(listen=["localhost:6820", "unix:/run/r.sock"])) == "localhost:6820,unix:/run/r.sock"


def test_native_metrics_by_release_and_private_data():
    on = {"enabled": True, "ignore_private_data": False}
    assert metrics_conf(on, "26.05", {}) == ({"MetricsType": "metrics/openmetrics"}, [])
    assert metrics_conf(on, "24.11", {}) == ({}, [])
    assert metrics_conf({"enabled": False}, "26.05", {}) == ({}, [])
    keys, errors = metrics_conf(on, "26.05", {"PrivateData": "jobs,usage"})
    assert keys == {} and "PrivateData=jobs,usage" in errors[0] and "slurm_native_metrics_ignore_private_data" in errors[0]
    keys, errors = metrics_conf(dict(on, ignore_private_data=True), "26.05", {"privatedata": "jobs"})
    assert errors == [] and keys == {"MetricsType": "metrics/openmetrics", "MetricsParameters": "ignore_private_data"}
    assert "slurm_native_metrics is 'on'" in metrics_conf({"enabled": "on"}, "26.05", {})[1][0]


@pytest.mark.parametrize("text, expected", [
    ("MetricsType=metrics/openmetrics\n", True),
    ("ClusterName=x\nmetricstype = Metrics/OpenMetrics # native\n", True),
    ("#MetricsType=metrics/openmetrics\n", False),
    ("MetricsType=metrics/none\n", False),
    ("", False),
    (None, False),
    (b"MetricsType=metrics/openmetrics", False),
])
def test_conf_has_native_metrics(text, expected):
    assert conf_has_native_metrics(text) is expected


# --- the model -------------------------------------------------------------------------

def _model(series="26.05", rest=None, metrics=None, config=None, dbd=None, accounting=True):
    settings_ = copy.deepcopy(SETTINGS)
    settings_.update(series=series, accounting=accounting, jwt_key_path="/etc/slurm/jwt_hs256.key",
                     rest=REST if rest is None else rest, config=config or {},
                     native_metrics=metrics or {"enabled": True, "ignore_private_data": False})
    return build_model(_inventory(2, dbd=dbd), settings_)


def test_the_model_writes_jwt_and_native_metrics_and_names_the_hosts():
    model = _model(dbd="db")
    assert model["errors"] == []
    assert model["settings"]["AuthAltTypes"] == "auth/jwt"
    assert model["settings"]["MetricsType"] == "metrics/openmetrics"
    assert "AuthAltTypes=auth/jwt" in model["slurm_conf"]
    assert model["native_metrics"] is True
    assert model["rest"] == {"enabled": True, "hosts": ["ctl"], "listen": "localhost:6820",
                             "options": "-a rest_auth/jwt -s slurmctld,slurmdbd -d v0.0.42,v0.0.43,v0.0.44,v0.0.45",
                             "dbd_params": "jwt_key=/etc/slurm/jwt_hs256.key"}
    hosts = model["hosts"]
    assert (hosts["ctl"]["rest"], hosts["ctl"]["jwt"]) == (True, True)
    assert (hosts["db"]["rest"], hosts["db"]["jwt"]) == (False, True)
    assert (hosts["gpu01"]["rest"], hosts["gpu01"]["jwt"]) == (False, False)
    # Restart keys: the fingerprint holds what only a restart applies.
    assert "AuthAltTypes" in model["settings"] and "MetricsType" in model["settings"]


def test_the_model_on_an_older_release_has_neither():
    model = _model(series="24.11", rest=_rest(enabled=False))
    assert model["errors"] == []
    assert "MetricsType" not in model["settings"] and "AuthAltTypes" not in model["settings"]
    assert model["native_metrics"] is False and model["rest"]["enabled"] is False
    assert model["hosts"]["ctl"]["jwt"] is False


def test_the_model_stops_on_bad_rest_settings_and_on_private_data():
    model = _model(series="22.05")
    assert any("this cluster runs Slurm 22.05" in error for error in model["errors"])
    model = _model(config={"PrivateData": "jobs"})
    assert any("PrivateData=jobs" in error for error in model["errors"])
    model = _model(rest=_rest(hosts=["gpu01"]))
    assert any("gpu01, which is not a controller or slurmdbd host" in error for error in model["errors"])


def test_the_users_own_keys_stand():
    model = _model(config={"MetricsType": "metrics/openmetrics", "AuthAltParameters": "jwt_key=/srv/k"})
    assert model["settings"]["AuthAltParameters"] == "jwt_key=/srv/k"


def test_bundle_handlers_for_the_jwt_key_and_slurmrestd():
    probe = {"packages": {"munge": True}, "services": {"slurmrestd": {"active": True}}}
    host = {"controller": True, "rest": True}
    assert bundle_handlers({"jwt": [{"path": "/etc/slurm/jwt_hs256.key"}]}, host, probe, True) == \
        ["reconfigure", "restart slurmrestd"]
    dropin = {"path": "/etc/systemd/system/slurmrestd.service.d/gpuops.conf"}
    assert bundle_handlers({"rest": [dropin]}, host, probe, True) == ["daemon reload", "restart slurmrestd"]
    # slurmrestd not running yet: it starts on the new drop-in.
    assert bundle_handlers({"rest": [dropin]}, host, {"services": {}}, True) == ["daemon reload"]


# --- the JWT key's rule is the munge key's -----------------------------------------------

def test_the_jwt_key_plan_names_the_jwt_key():
    one, two = hashlib.sha1(b"a").hexdigest(), hashlib.sha1(b"b").hexdigest()
    plan = munge_key_plan("", {"ctl": one, "db": two}, ["ctl"], ["ctl", "db"], kind="jwt")
    assert plan["action"] == "stop"
    assert "2 different JWT keys" in plan["message"] and "slurm_jwt_key" in plan["message"]
    assert "/etc/slurm/jwt_hs256.key" in plan["message"]
    assert munge_key_plan("", {"ctl": "missing"}, ["ctl"], ["ctl"], kind="jwt")["action"] == "new"
    plan = munge_key_plan("", {"ctl": one, "db": two}, ["ctl"], ["ctl", "db"])
    assert "munge keys" in plan["message"]


def test_an_unknown_kind_is_refused():
    with pytest.raises(Exception, match="kind must be one of jwt, munge"):
        munge_key_plan("", {}, [], [], kind="ssh")


# --- the exporter leaves slurmctld's families to it ---------------------------------------

SINFO = "gpu01|gpu*|idle|none\ngpu02|gpu*|drained|admin\n"
GRES = "gpu01 gpu* gpu:v100s:8 gpu:v100s:0\ngpu02 gpu* gpu:v100s:8 gpu:v100s:1\n"


def test_native_mode_leaves_out_what_slurmctld_exports_and_keeps_the_rest():
    results = {"sinfo": {"out": SINFO}, "sinfo_gres": {"out": GRES},
               "scontrol_ping": {"out": "Slurmctld(primary) at ctl is UP\n"}}
    names = set(sample[0] for sample in slurm_samples(results))
    native = set(sample[0] for sample in slurm_samples(results, native=True))
    assert PREFIX + "node_gpus" in names and PREFIX + "nodes" in names
    assert native == names - set(PREFIX + family for family in NATIVE_FAMILIES)
    assert PREFIX + "node_state" in native and PREFIX + "controller_up" in native


# --- Prometheus scrapes slurmctld where it serves them, and the alerts read either ----------

PLAN = {"targets": {"slurm": [{"host": "ctl", "node": "ctl", "address": "10.0.0.1"},
                              {"host": "ctl2", "node": "ctl2", "address": "10.0.0.2"}],
                    "prometheus": [], "alertmanager": [], "node": [], "gpu": []}}
PROM = {"scrape_interval": "15s", "scrape_timeout": "10s", "evaluation_interval": "15s",
        "ports": {"slurm": 9446, "prometheus": 9090, "alertmanager": 9093, "node": 9100, "gpu": 9445}}


def test_the_slurmctld_job_has_every_endpoint_of_every_controller_and_follows_no_redirect():
    job = native_scrape_config(PLAN["targets"]["slurm"], "MetricsType=metrics/openmetrics\n", 6817)
    assert job["job_name"] == "slurmctld" and job["follow_redirects"] is False and job["honor_labels"] is True
    assert len(job["static_configs"]) == 2 * len(NATIVE_ENDPOINTS)
    assert job["static_configs"][0] == {"targets": ["10.0.0.1:6817"], "labels": {
        "instance": "ctl", "node": "ctl", "endpoint": "jobs", "__metrics_path__": "/metrics/jobs"}}
    assert native_scrape_config(PLAN["targets"]["slurm"], "ClusterName=x\n", 6817) is None
    assert native_scrape_config([], "MetricsType=metrics/openmetrics\n", 6817) is None
    config = prometheus_config(PLAN, dict(PROM, slurm_conf="MetricsType=metrics/openmetrics", slurmctld_port=6817))
    assert [job["job_name"] for job in config["scrape_configs"]] == ["slurm", "slurmctld"]
    assert [job["job_name"] for job in prometheus_config(PLAN, PROM)["scrape_configs"]] == ["slurm"]


def test_the_alerts_read_native_series_where_they_exist():
    rules = dict((rule["alert"], rule["expr"]) for group in alert_rules({})["groups"] for rule in group["rules"])
    assert "slurm_node_gpus" in rules["GpuopsGpuCountBelowGres"]
    assert 'gpuops_slurm_node_gpus{kind="total"}' in rules["GpuopsGpuCountBelowGres"]
    assert "slurm_partition_nodes_down" in rules["GpuopsSlurmPartitionNodesDown"]
    assert rules["GpuopsExporterDown"] == 'up{job!~"node|slurmctld"} == 0'
