# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every settings check and plan, fed the settings a role passes with values of every type and shape put in.

The values (mutation.HOSTILE_VALUE) are what YAML, JSON or a Jinja
expression can give a variable: .inf, .nan, dates, binary, None, booleans,
ints past Python's 4,300-digit limit, long digit runs followed by a bad
character, runs of brackets, lists nested thousands deep, text of any
kind, mappings where lists belong and the other way round. Each is put at
any level of the settings (mutation.mutated_settings).

* A settings function (it returns errors) never raises: it returns a list of
  short messages, each naming a variable of its role.
* A plan that refuses input of a shape its role never builds raises its
  own error only, never one of Python's.
* Once the settings check passes, what is rendered from the settings works
  and is valid JSON (no NaN, no infinity).
* Every call stays within a CPU-time budget (cost.bounded), so a pattern that
  backtracks on one value fails the test instead of hanging it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.common import (
    _file_state,
    _service_units,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import (
    _mpi_env,
    _nccl_tuning,
    _rdma_peermem,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu import _gpu_plan
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import (
    _alert_rules,
    _exporter_settings,
    _gpu_metrics,
    _grafana_settings,
    _monitoring,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.site import (
    _chrony,
    _cluster_users,
    _env_modules,
    _local_accounts,
    _pytorch_env_settings,
    _shared_storage,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import (
    _slurm_accounts,
    _slurm_compute,
    _slurm_containers,
    _slurm_dbd_settings,
    _slurm_maintenance,
    _slurm_model,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate import (
    _validate_checks,
    _validate_report,
    _validate_settings,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown
from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils import (
    test_chrony,
    test_cluster_users,
    test_env_modules,
    test_exporter_settings,
    test_file_state,
    test_gpu_metrics,
    test_gpu_plan,
    test_grafana_settings,
    test_local_accounts,
    test_pytorch_env_settings,
    test_rdma_peermem,
    test_slurm_compute,
    test_slurm_containers,
    test_slurm_dbd_settings,
    test_slurm_maintenance,
    test_slurm_model,
    test_validate_checks,
    test_validate_report,
    test_validate_settings,
)

from .cost import bounded
from .mutation import HOSTILE_VALUE, HUGE_INT, YAML_SPECIALS, _replaced, hostile_text, mutated_settings, nested

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
# The CPU time one call may take (the slowest, build_model of a few hosts, takes milliseconds).
BUDGET = 1.0
# The longest message a check may give (a value is quoted clipped, never whole).
MESSAGE_LIMIT = 1500
EXAMPLES = 60


def _role_alert_settings():
    with open(os.path.join(ROOT, "roles", "prometheus", "defaults", "main", "alerts.yml")) as handle:
        defaults = yaml.safe_load(handle)
    return dict((name[len("prometheus_alert_"):], value) for name, value in defaults.items())


def _health_settings():
    return {"checks": {"diag": False}, "xid_drain": list(_health.DEFAULT_DRAIN_XIDS),
            "memory_drain": list(_health.DEFAULT_MEMORY_DRAIN), "temp_slowdown_margin_c": 0,
            "nvidia_smi_timeout_s": 10, "kill_grace_s": 5, "kill_wait_s": 5, "kernel_log": "/dev/kmsg",
            "rdma_expected": "auto"}


MONITORING = {
    "scrape_interval": "30s", "scrape_timeout": "10s", "evaluation_interval": "30s", "retention_time": "30d",
    "external_labels": {"cluster": "lab"}, "rule_files": ["/etc/prometheus/rules/gpuops.rules.yml"],
    "extra_scrape_configs": [{"job_name": "ipmi", "static_configs": [{"targets": ["bmc1:9290"]}]}],
    "ports": {"node": 9100, "gpu": 9445, "slurm": 9446, "prometheus": 9090, "alertmanager": 9093},
    "receivers": [{"name": "default"}, {"name": "ops", "email_configs": [{"to": "ops@example.org"}]}],
    "route": {"repeat_interval": "4h"}, "inhibit_rules": [{"equal": ["node"]}],
    "remove_hosts": ["gpu09", "gpu10.example.org"],
}
MONITORING_PLAN = {"targets": {"node": [{"host": "gpu01", "node": "gpu01", "address": "10.0.0.11"}],
                               "gpu": [{"host": "gpu01", "node": "gpu01", "address": "10.0.0.11"}], "slurm": [],
                               "prometheus": [{"host": "mon", "node": "mon", "address": "10.0.0.2"}],
                               "alertmanager": [{"host": "mon", "node": "mon", "address": "10.0.0.2"}]},
                   "errors": [], "by_name": []}
# The running prometheus.yml (as a mapping: the plan reads its YAML text), this run's inventory and the removal list.
MONITORING_KEPT = {"running": _monitoring.prometheus_config(dict(MONITORING_PLAN, targets=dict(
    MONITORING_PLAN["targets"], slurm=[{"host": "ctl", "node": "ctl", "address": "fd00::1"}])), MONITORING),
    "inventory": ["mon", "gpu02"], "remove": ["gpu09"]}


def _yaml_text(data):
    """data as YAML text, or None where PyYAML cannot write it (the plan then reads no running file)."""
    try:
        return yaml.safe_dump(data)
    except (yaml.YAMLError, RecursionError, TypeError, ValueError):
        return None


SHARED_STORAGE = {
    "settings": {"mode": "nfs", "server_group": "storage", "server_address": "", "exports_file":
                 "/etc/exports.d/gpuops.exports", "check_user": "nobody", "export_options": ["rw", "sync"],
                 "mount_options": ["hard", "x-systemd.mount-timeout=30s"],
                 "exports": [{"path": "/shared", "clients": ["10.0.0.0/24", "gpu*"],
                              "options": ["rw", "sync", "fsid=0"]}],
                 "mounts": [{"path": "/shared", "options": ["hard", "vers=4.2", "x-systemd.idle-timeout=1min30s"]},
                            {"path": "/data", "src": "nas:/export/data", "fstype": "nfs4", "mode": "0755"}]},
    "server_group": ["nfs1"], "controllers": ["ctl"],
    "clients_info": {"gpu01": {"addresses": ["10.0.0.11"], "names": ["gpu01"]}},
}
CLUSTER_USERS = {"users": test_cluster_users.USERS, "groups": test_cluster_users.GROUPS,
                 "settings": test_cluster_users.ROLE_SETTINGS}
ENV_MODULES = {"settings": test_env_modules.SETTINGS,
               "found": {"cuda_dirs": ["/usr/local/cuda-12.8"], "files": ["/usr/local/cuda-12.8/bin/nvcc",
                                                                          "/usr/local/cuda-12.8/lib64"],
                         "distro": test_env_modules.DEBIAN_DISTRO, "package_versions": {"nvidia-cuda-toolkit": None},
                         "cuda_link": "/usr/local/cuda-12.8", "managed": ["/opt/gpuops/modulefiles/cuda/11.8"]}}
SLURM_CONTAINERS = {"settings": test_slurm_containers.SETTINGS, "facts": test_slurm_containers.FACTS}
SHARED_STORAGE_EXTERNAL = dict(SHARED_STORAGE, settings={
    "mode": "external", "check_user": "nobody", "mounts": [{"path": "/lustre", "fstype": "lustre", "writable": True},
                                                           {"path": "/gpfs", "check_user": "alice", "writable": False}]})
SLURM_MODEL = {"inventory": test_slurm_model._inventory(2), "settings": test_slurm_model._settings()}
# Nodes declared by hardware profile (slurm_node_profiles, slurm_image_nodes), beside the inventory's.
SLURM_MODEL_IMAGES = {"inventory": test_slurm_model._inventory(2),
                      "settings": test_slurm_model._images([{"names": "rtx[01-04]", "profile": "rtx"},
                                                            {"names": "rtx05", "profile": "rtx", "addr": "10.1.0.5"}])}
# Every part of the input is a user's (the settings as a whole).
ALL = ((),)


def _parts(value, *keys):
    """The parts of a mutated {key: part} (the whole value for each part when it is no longer a mapping)."""
    return [value.get(key) if isinstance(value, dict) else value for key in keys]


# (name, function of the settings, the settings a role passes, a variable every message names, the function's
# own error for a shape its role never builds (None: it never raises), the parts of the input a user sets)
SETTINGS_CHECKS = [
    ("alert_settings_errors", _alert_rules.alert_settings_errors, _role_alert_settings(), r"prometheus_alert_", None,
     ALL),
    ("monitoring settings_errors", _monitoring.settings_errors, MONITORING, r"prometheus_|gpuops_monitoring_", None,
     ALL),
    ("node_health settings_errors", _health.settings_errors, _health_settings(), r"node_health_", None, ALL),
    ("env_modules plan", lambda value: _env_modules.plan(*_parts(value, "settings", "found")), ENV_MODULES,
     r"env_modules_", _env_modules.EnvModulesError, (("settings",),)),
    ("env_modules settings_errors", _env_modules.settings_errors, test_env_modules.SETTINGS,
     r"env_modules_|roles/env_modules/vars", None,
     ALL),
    ("shared_storage plan", lambda value: _shared_storage.plan(
        *_parts(value, "settings", "server_group", "controllers", "clients_info")), SHARED_STORAGE,
     r"shared_storage_", _shared_storage.SharedStorageError, (("settings",),)),
    ("shared_storage plan, external", lambda value: _shared_storage.plan(
        *_parts(value, "settings", "server_group", "controllers", "clients_info")), SHARED_STORAGE_EXTERNAL,
     r"shared_storage_", _shared_storage.SharedStorageError, (("settings",),)),
    ("mount_option_errors", lambda value: _shared_storage.mount_option_errors(value, "shared_storage_mounts[0]"),
     ["hard", "vers=4.2", "x-systemd.mount-timeout=1min30s", "x-systemd.device-timeout=infinity"],
     r"shared_storage_", None, ALL),
    ("export_option_errors", lambda value: _shared_storage.export_option_errors(value, "shared_storage_exports[0]"),
     ["rw", "sync", "sec=krb5p:sys", "refer=/a@nas1", "fsid=root", "anonuid=65534"], r"shared_storage_", None, ALL),
    ("slurm_containers plan", lambda value: _slurm_containers.plan(*_parts(value, "settings", "facts")),
     SLURM_CONTAINERS, r"slurm_containers_", None, (("settings",),)),
    ("chrony config", _chrony.config,
     test_chrony._settings(servers=["ntp1.example.org iburst", {"host": "ntp2", "pool": True}]),
     r"chrony_|roles/chrony/vars", None, ALL),
    ("chrony config of the time server", _chrony.config, test_chrony._settings(time_server=True, allow=["10.0.0.0/16"]),
     r"chrony_|roles/chrony/vars", None, ALL),
    ("nvidia_driver settings_errors", _gpu_plan.driver_settings_errors, test_gpu_plan.DRIVER_CHECKS, r"nvidia_driver_",
     None, ALL),
    ("nvidia_driver settings_errors, NVIDIA's repository", _gpu_plan.driver_settings_errors,
     test_gpu_plan.UBUNTU_CHECKS, r"nvidia_driver_", None, ALL),
    ("cuda settings_errors", _gpu_plan.cuda_settings_errors, test_gpu_plan.CUDA_CHECKS, r"(?i)cuda", None, ALL),
    ("rdma_peermem settings_errors", _rdma_peermem.settings_errors, test_rdma_peermem.SETTINGS, r"rdma_peermem_",
     None, ALL),
    ("cluster_users plan", lambda value: _cluster_users.plan(*_parts(value, "users", "groups", "settings")),
     CLUSTER_USERS, r"cluster_users_", None, ALL),
    ("slurm build_model", lambda value: _slurm_model.build_model(*_parts(value, "inventory", "settings")), SLURM_MODEL,
     r"slurm_|slurm\.conf|cgroup\.conf", _slurm_model.SlurmModelError,
     (("settings",), ("inventory", "hosts", "gpu01", "vars"))),
    ("slurm build_model, image nodes", lambda value: _slurm_model.build_model(*_parts(value, "inventory", "settings")),
     SLURM_MODEL_IMAGES, r"slurm_|slurm\.conf|cgroup\.conf", _slurm_model.SlurmModelError,
     (("settings", "node_profiles"), ("settings", "image_nodes"), ("settings", "partitions"))),
    ("grafana settings_errors", _grafana_settings.settings_errors, test_grafana_settings.settings(), r"grafana_",
     None, ALL),
    ("pytorch_env settings_errors", _pytorch_env_settings.settings_errors, test_pytorch_env_settings.settings(),
     r"pytorch_env_", None, ALL),
    ("slurm_dbd settings_errors", _slurm_dbd_settings.settings_errors, test_slurm_dbd_settings.settings(),
     r"slurm_dbd_", None, ALL),
    ("slurm_maintenance settings_errors", _slurm_maintenance.settings_errors, test_slurm_maintenance.settings(),
     r"slurm_maintenance_|slurm_controller_group", None, ALL),
    ("validate settings_errors", _validate_settings.settings_errors, test_validate_settings.settings(),
     r"validate_|slurm_controller_group", None, ALL),
    ("gpu_exporter settings_errors", _exporter_settings.gpu_exporter_settings_errors,
     test_exporter_settings.gpu_settings(), r"gpu_exporter_", None, ALL),
    ("node_exporter settings_errors", _exporter_settings.node_exporter_settings_errors,
     test_exporter_settings.node_settings(), r"node_exporter_", None, ALL),
    ("nccl_tuning settings_errors", _nccl_tuning.settings_errors, test_exporter_settings.nccl_settings(),
     r"nccl_tuning_", None, ALL),
    ("slurm_compute pam_adopt_errors", _slurm_compute.pam_adopt_errors, test_slurm_compute.settings(),
     r"slurm_compute_pam_slurm_adopt", None, ALL),
]
SETTINGS_IDS = [row[0] for row in SETTINGS_CHECKS]


def _errors(name, result):
    errors = result if isinstance(result, list) else result.get("errors")
    assert isinstance(errors, list), (name, result)
    return errors


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
@pytest.mark.parametrize("name, function, base, variable, own, under", SETTINGS_CHECKS, ids=SETTINGS_IDS)
def test_a_settings_check_names_every_bad_value_and_never_raises(name, function, base, variable, own, under, data):
    value = data.draw(mutated_settings(base, under=under), label="settings")
    try:
        result, _seconds = bounded(BUDGET, function, value)
    except Exception as exc:  # pylint: disable=broad-except
        if own is None or not isinstance(exc, own):
            raise
        assert len(str(exc)) < MESSAGE_LIMIT
        return
    for message in _errors(name, result):
        assert isinstance(message, str) and 0 < len(message) < MESSAGE_LIMIT, message[:200]
        assert re.search(variable, message), message[:300]
    json.dumps(_errors(name, result))


@pytest.mark.parametrize("name, function, base, variable, own, under", SETTINGS_CHECKS, ids=SETTINGS_IDS)
def test_the_settings_a_role_passes_have_no_errors(name, function, base, variable, own, under):
    assert _errors(name, function(copy.deepcopy(base))) == []


@pytest.mark.parametrize("name, function, base, variable, own, under", SETTINGS_CHECKS, ids=SETTINGS_IDS)
@pytest.mark.parametrize("value", YAML_SPECIALS + [HUGE_INT, [HUGE_INT], nested(5000), {"deep": nested(5000)}],
                         ids=lambda value: re.sub(r"\W+", "_", _short(value)))
def test_a_settings_check_of_one_value_of_any_type(name, function, base, variable, own, under, value):
    """Each part a user sets, as a whole, replaced by one value of any type."""
    for root in under:
        try:
            result, _seconds = bounded(BUDGET, function, _replaced(base, root, value))
        except Exception as exc:  # pylint: disable=broad-except
            if own is None or not isinstance(exc, own):
                raise
            continue
        for message in _errors(name, result):
            assert re.search(variable, message) and len(message) < MESSAGE_LIMIT, message[:300]


def _short(value):
    return shown(value, 16)


# --- once the check passes, what is rendered from the settings works -------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=mutated_settings(_role_alert_settings()))
def test_alert_settings_that_pass_the_check_render_rules_of_valid_json(value):
    errors, _seconds = bounded(BUDGET, _alert_rules.alert_settings_errors, value)
    if errors:
        with pytest.raises(_alert_rules.AlertRulesError):
            _alert_rules.alert_rules(value)
        return
    rules, _seconds = bounded(BUDGET, _alert_rules.alert_rules, value)
    json.dumps(rules, allow_nan=False)


REQUIRED_MONITORING = ("ports", "scrape_interval", "scrape_timeout", "evaluation_interval")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=mutated_settings(MONITORING))
def test_monitoring_settings_that_pass_the_check_render_prometheus_and_alertmanager(value):
    errors, _seconds = bounded(BUDGET, _monitoring.settings_errors, value)
    # The role always passes these (from its defaults); the check is of their values.
    if not errors and isinstance(value, dict) and all(value.get(key) is not None for key in REQUIRED_MONITORING):
        bounded(BUDGET, _monitoring.prometheus_config, MONITORING_PLAN, value)
        bounded(BUDGET, _monitoring.alertmanager_config, value)


# --- plans over facts and gathered data: their own error only ---------------------------------------------------

SMI = test_gpu_metrics._smi("datakit_8x-tesla-v100s-pcie-32gb.xml")
IB_PORT = {"port": 1, "link_layer": "Ethernet", "roce_v2_gid_index": 3}
IB_FACT = {"selected": ["mlx5_0:1"], "hcas": [{"name": "mlx5_0", "ports": [IB_PORT]}],
           "nccl_env": {"NCCL_SOCKET_IFNAME": "=eth0"}}

NEW_RECORD = {"settings": {"SlurmctldPort": 6817}, "nodes": ["gpu[01-02]:gpu:8:1:8"], "configless": False}

# (name, function of the input, the input as the play builds it, the function's own error (None: never raises),
# the parts of the input that come from a user's variables, a state file or a command's output)
PLANS = [
    ("nvidia driver_plan", _gpu_plan.driver_plan, test_gpu_plan.DEBIAN, _gpu_plan.GpuPlanError, ALL),
    ("cuda_plan", _gpu_plan.cuda_plan, {"source": "nvidia", "pkg_manager": "apt", "versions": ["12.4", "12.8"],
                                        "nvidia_default_versions": ["12.8"], "default_version": ""},
     _gpu_plan.GpuPlanError, ALL),
    ("mpi ucx_env", _mpi_env.ucx_env, IB_FACT, _mpi_env.MpiEnvError, ALL),
    ("rdma_peermem ports", lambda value: _rdma_peermem.ports(value, "node", "auto"), test_rdma_peermem.IB,
     _rdma_peermem.RdmaPeermemError, ALL),
    ("local_accounts todo", lambda value: _local_accounts.todo(*_parts(value, "groups", "users", "probe")),
     {"groups": test_local_accounts.GROUPS, "users": test_local_accounts.USERS,
      "probe": {"groups": {"munge": {"exists": True, "gid": 64031}}, "users": {}}}, _local_accounts.AccountsError,
     (("groups",), ("users",))),
    ("local_accounts plan",
     lambda value: _local_accounts.plan(*_parts(value, "groups", "users", "host_groups", "host_users")),
     {"groups": test_local_accounts.GROUPS, "users": test_local_accounts.USERS,
      "host_groups": test_local_accounts.BASE_GROUPS, "host_users": test_local_accounts.BASE_USERS},
     _local_accounts.AccountsError, (("groups",), ("users",))),
    ("slurm_accounts normalize_desired", _slurm_accounts.normalize_desired,
     [{"name": "chem", "fairshare": 10, "users": ["alice", {"name": "bob", "fairshare": 2}],
       "limits": {"GrpTRES": "gres/gpu=8", "MaxJobs": 10, "MaxWall": "1-00:00:00"}}],
     _slurm_accounts.SlurmAccountsError, ALL),
    ("file_state stale_entries", lambda value: _file_state.stale_entries(*_parts(value, "wanted", "found")),
     {"wanted": [{"path": "/etc/slurm/slurm.conf", "content": test_file_state.CONF, "mode": "0644"},
                 {"path": "/etc/slurm", "state": "directory"}], "found": test_file_state.FOUND},
     _file_state.FileStateError, (("wanted",),)),
    ("service_units plan", lambda value: _service_units.plan(*_parts(value, "names", "found")),
     {"names": ["munge", "slurmd.service"], "found": {"munge": {"loaded": True, "active": True, "enabled": True}}},
     _service_units.ServiceUnitsError, (("names",),)),
    ("cluster_users host_view", lambda value: _cluster_users.host_view(*_parts(value, "passwd", "group", "plan")),
     {"passwd": test_cluster_users.PASSWD_OK, "group": test_cluster_users.GROUP_OK,
      "plan": test_cluster_users._plan()}, _cluster_users.ClusterUsersError, (("passwd",), ("group",))),
    ("node_health expectation", lambda value: _health.expectation(*_parts(value, "gres", "gpus", "driver", "ib_selected",
                                                                          "ib_hcas")),
     {"gres": "gpu:tesla_v100s-pcie-32gb:8", "gpus": SMI["gpus"], "driver": "460.73.01", "ib_selected": ["mlx5_0:1"],
      "ib_hcas": IB_FACT["hcas"]}, _health.HealthError, (("gres",), ("driver",), ("ib_selected",))),
    ("health xid_state", lambda value: _health.xid_state(*_parts(value, "state", "boot", "events", "drain")),
     {"state": {"boot_id": "b", "open": [{"xid": 79, "pci": "0000:3b:00", "detail": ""}],
                "counts": [{"pci": "0000:3b:00", "xid": 79, "count": 1}], "position": {"kmsg_seq": 12}},
      "boot": "b", "events": [], "drain": [79]}, None, (("state",), ("drain",))),
    ("health read_xid_state and read_stuck", lambda value: (_health.read_xid_state(value, "b"),
                                                            _health.read_stuck(value)),
     {"boot_id": "b", "open": [{"xid": 79, "pci": "0000:3b:00", "detail": ""}], "counts": [], "position": {}}, None,
     ALL),
    ("health read_stuck", _health.read_stuck, [{"pid": 4242, "start": "12345", "why": "python on GPU 0, left by job 7"}],
     None, ALL),
    ("gpu exporter xid_samples", lambda value: _gpu_metrics.xid_samples(value, SMI),
     {"boot_id": "b", "open": [], "counts": [{"pci": "0000:3b:00", "xid": 79, "count": 1}]}, None, ALL),
    ("validate health_last_result", lambda value: _validate_checks.health_last_result("gpu01", value, 10, 300),
     {"node": "gpu01", "mode": "interval", "time": "2026-11-24T10:00:00+0000", "status": "fail",
      "counts": {"pass": 8, "fail": 1, "not_run": 3}, "reason": "gpuops-health: xid: XID 79", "action": "drain",
      "why": "a check failed", "results": [{"check": "xid", "status": "fail"}]}, None, ALL),
    ("monitoring kept_targets", lambda value: _monitoring.kept_targets(
        _yaml_text(_parts(value, "running")[0]), *_parts(value, "inventory", "remove")), MONITORING_KEPT,
     _monitoring.MonitoringError, (("running",), ("remove",))),
    ("monitoring running_targets", _monitoring.running_targets, _yaml_text(MONITORING_KEPT["running"]), None, ALL),
    ("slurm restart_changes", lambda value: _slurm_model.restart_changes(value, NEW_RECORD, ["SlurmctldPort"]),
     {"settings": {"SlurmctldPort": 6818, "SlurmctldHost": ["ctl", "ctl2"]}, "nodes": ["gpu01:gpu:8:1:8"],
      "configless": True}, None, ALL),
    ("validate report", lambda value: (_validate_report.results_json(value),
                                       _validate_report.render_html(value, {}, "lab", "2026-11-24T10:00:00Z")),
     test_validate_report.RESULTS[:6], _validate_report.ReportError, ALL),
    ("pytorch_env pip_env", lambda value: _pytorch_env_settings.pip_env(value, test_pytorch_env_settings.INDEX),
     test_pytorch_env_settings.settings(), _pytorch_env_settings.PytorchEnvError, ALL),
    ("slurm_maintenance plan_message", lambda value: _slurm_maintenance.plan_message(
        *_parts(value, "action", "stale", "installed", "target", "node_task")),
     {"action": "upgrade", "stale": ["slurmd"], "installed": test_slurm_maintenance.INSTALLED, "target": "24.11.5-4",
      "node_task": ""}, _slurm_maintenance.SlurmMaintenanceError, (("installed",), ("target",))),
    ("validate node_checks", lambda value: _validate_checks.node_checks(*_parts(value, "data", "expect")),
     {"data": test_validate_checks.container_node(), "expect": test_validate_checks.EXPECT}, None,
     (("data", "munge"), ("data", "chronyc"), ("data", "timedatectl"), ("data", "health_last"), ("data", "clock"),
      ("data", "controller_clock"))),
]
PLAN_IDS = [row[0] for row in PLANS]
# Plans that give back entries of their input as they are (the stale ones), not a result of their own.
PASSED_THROUGH = ("file_state stale_entries",)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
@pytest.mark.parametrize("name, function, base, own, under", PLANS, ids=PLAN_IDS)
def test_a_plan_over_any_input_raises_only_its_own_error(name, function, base, own, under, data):
    value = data.draw(mutated_settings(base, under=under), label="input")
    try:
        result, _seconds = bounded(BUDGET, function, value)
    except Exception as exc:  # pylint: disable=broad-except
        if own is None or not isinstance(exc, own):
            raise
        assert len(str(exc)) < MESSAGE_LIMIT, str(exc)[:300]
        return
    if name not in PASSED_THROUGH:
        json.dumps(result, default=repr)


@pytest.mark.parametrize("name, function, base, own, under", PLANS, ids=PLAN_IDS)
def test_a_plan_of_the_input_the_play_builds_works(name, function, base, own, under):
    function(copy.deepcopy(base))


# --- the job environment: Slurm's variables as a job step sees them ---------------------------------------------

SLURM_ENV = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "0", "SLURM_STEP_NODELIST": "gpu[07-09,12]",
             "SLURM_JOB_NODELIST": "gpu[07-09,12]", "SLURM_STEP_NUM_TASKS": "32", "SLURM_NTASKS": "32",
             "SLURM_PROCID": "9", "SLURM_LOCALID": "1", "SLURM_NODEID": "1", "SLURM_STEP_TASKS_PER_NODE": "8(x4)"}


@settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(st.sampled_from(sorted(SLURM_ENV) + ["MASTER_ADDR", "SLURM_TASKS_PER_NODE"]),
                               st.one_of(hostile_text(60), st.sampled_from([value for value in YAML_SPECIALS
                                                                            if isinstance(value, str)])),
                               max_size=4))
def test_the_job_environment_never_breaks_a_python_start(changes):
    from ansible_collections.gpuops.cluster.plugins.module_utils.site import _torch_slurm_env
    environ = dict(SLURM_ENV, **changes)
    values, _seconds = bounded(BUDGET, _torch_slurm_env.torch_env, environ)
    for name, value in values.items():
        assert name in _torch_slurm_env.ORDER and isinstance(value, str) and "\n" not in value


def test_hostile_values_include_every_class_of_the_issue():
    # The classes the second round found (issue 34), so that a change of the strategies cannot drop one.
    kinds = set(type(value).__name__ for value in YAML_SPECIALS)
    assert {"float", "date", "datetime", "bytes", "NoneType", "bool", "int", "str", "dict", "list"} <= kinds
    assert any(isinstance(value, str) and value.startswith("1" * 26) and value[-1].isalpha() for value in YAML_SPECIALS)
    assert HUGE_INT > 10 ** 4300
    assert HOSTILE_VALUE is not None
