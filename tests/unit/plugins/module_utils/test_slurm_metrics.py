# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm exporter's readers (module_utils/monitoring/_slurm_metrics.py) over real captures (tests/fixtures/slurm_exporter)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import (
    COMMANDS,
    TAKEOVER_NOTE,
    SlurmMetricsError,
    count_by,
    gres_gpus,
    gres_samples,
    job_samples,
    node_samples,
    node_state,
    parse_ping,
    ping_samples,
    exporter_active,
    sdiag_samples,
    share_samples,
    slurm_samples,
    parse_pipe,
    parse_sdiag,
    parse_sshare,
    takeover_samples,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "slurm_exporter")


def _read(*parts):
    with open(os.path.join(FIXTURES, *parts), "rb") as handle:
        return handle.read().decode("utf-8")


@pytest.mark.parametrize("name, general, main, backfill, rpc_types, first_rpc", [
    ("SckyzO_slurm_exporter_24.11.7.txt", {"jobs_submitted": 15, "jobs_started": 11, "server_thread_count": 1},
     {"last_cycle": 3508, "max_cycle": 3508, "mean_cycle": 779, "total_cycles": 5, "last_queue_length": 15},
     {"total_cycles": 0, "last_cycle": 0}, 12,
     {"name": "REQUEST_PARTITION_INFO", "id": 2009, "count": 48, "ave_time": 189, "total_time": 9096}),
    ("SckyzO_slurm_exporter_26.05.2.txt", {"jobs_pending": 6, "jobs_running": 8},
     {"last_cycle": 3634, "mean_cycle": 796}, {"total_cycles": 0}, 12, None),
    # 2020 (Slurm 20.02 or so): 8-space indentation, ave_time running into the next column.
    ("treydock_prometheus-slurm-exporter_2020-06_unknown-version.txt", {"server_thread_count": 3},
     {"last_cycle": 40, "max_cycle": 84, "total_cycles": 826}, {"total_backfilled_jobs_since_last_slurm_start": 239},
     15, None),
])
def test_sdiag(name, general, main, backfill, rpc_types, first_rpc):
    stats = parse_sdiag(_read("sdiag", name))
    assert dict((key, stats["general"][key]) for key in general) == general
    assert dict((key, stats["main_schedule_statistics"][key]) for key in main) == main
    assert dict((key, stats["backfilling_stats"][key]) for key in backfill) == backfill
    assert len(stats["rpc_types"]) == rpc_types
    if first_rpc:
        assert stats["rpc_types"][0] == first_rpc
    assert all(set(row) == {"name", "id", "count", "ave_time", "total_time"} for row in stats["rpc_types"])


def test_sdiag_rpc_users_and_not_sdiag():
    stats = parse_sdiag(_read("sdiag", "SckyzO_slurm_exporter_24.11.7.txt"))
    assert stats["rpc_users"] == [{"name": "user5", "id": 0, "count": 162, "ave_time": 970, "total_time": 157285}]
    with pytest.raises(SlurmMetricsError, match="not sdiag output"):
        parse_sdiag("Jobs submitted: 3\n")


def test_sshare_rows_keep_the_tree():
    rows = parse_sshare(_read("sshare", "SckyzO_slurm_exporter_24.11.7_fairshare.txt"))
    assert rows[0] == {"account": "user5", "depth": 0, "user": "", "raw_shares": None, "norm_shares": 0.0,
                       "raw_usage": 0.0, "norm_usage": None, "fairshare": None}
    assert rows[1]["user"] == "user5" and rows[1]["depth"] == 1 and rows[1]["fairshare"] == 1.0
    with pytest.raises(SlurmMetricsError, match="sshare line 1: 2 fields, expected 7"):
        parse_sshare("chem|0.5\n")
    with pytest.raises(SlurmMetricsError, match="is not a number"):
        parse_sshare("chem|alice|1|x|0|0|1\n")


def test_squeue_counted_by_state_partition_and_cpus():
    rows = parse_pipe(_read("squeue", "SckyzO_slurm_exporter_24.11.7_queue_all_states.txt"),
                      ["partition", "state", "cpus", "reason", "user"], "squeue")
    assert count_by(rows, ["state"]) == [{"labels": {"state": "RUNNING"}, "value": 11},
                                         {"labels": {"state": "PENDING"}, "value": 4}]
    assert count_by(rows, ["partition", "state"], weight="cpus") == [
        {"labels": {"partition": "cpu", "state": "RUNNING"}, "value": 22.0},
        {"labels": {"partition": "debug", "state": "PENDING"}, "value": 21.0},
        {"labels": {"partition": "high", "state": "RUNNING"}, "value": 10.0}]
    reasons = count_by([row for row in rows if row["state"] == "PENDING"], ["reason"])
    assert [(item["labels"]["reason"], item["value"]) for item in reasons] == [("Priority", 3), ("Resources", 1)]
    with pytest.raises(SlurmMetricsError, match="squeue line 1: 1 fields, expected 5"):
        parse_pipe("garbage\n", ["partition", "state", "cpus", "reason", "user"], "squeue")


def _value(samples, name, **labels):
    found = [value for metric, have, value in samples
             if metric == "gpuops_slurm_" + name and all(have.get(key) == want for key, want in labels.items())]
    assert len(found) == 1, (name, labels, found)
    return found[0]


@pytest.mark.parametrize("text, gpus", [
    ("gpu:model_a:4(S:0-3)", 4), ("gpu:model_a:4(IDX:0-3)", 4), ("gpu:model_a:0(IDX:N/A)", 0), ("(null)", 0),
    ("gpu:model_a:2,gpu:model_b:2", 4), ("gpu:a100:8(S:0,1),shard:a100:64", 8), ("gpu:4", 4), ("gpu:v100s", 1),
    ("mps:100", 0), ("", 0),
])
def test_gres_gpus(text, gpus):
    assert gres_gpus(text) == gpus


@pytest.mark.parametrize("text, state, responding", [
    ("idle", "idle", True), ("drained*", "drained", False), ("idle~", "idle", True), ("mixed-", "mixed", True),
    ("DOWN*", "down", False), ("draining@", "draining", True),
])
def test_node_state(text, state, responding):
    assert node_state(text) == (state, responding)


def test_nodes_by_state_with_their_reasons_once_per_node():
    sinfo = ("gpu01|gpu*|idle|none\ngpu02|gpu*|drained|gpuops-health: gpu_count: nvidia-smi lists 7 of the 8 GPUs\n"
             "gpu02|debug|drained|gpuops-health: gpu_count: nvidia-smi lists 7 of the 8 GPUs\ngpu03|gpu*|down*|Not responding\n")
    samples = node_samples(sinfo)
    assert _value(samples, "node_state", node="gpu02") == 1
    assert [labels for name, labels, dummy in samples if labels.get("node") == "gpu02"] == [
        {"node": "gpu02", "state": "drained", "reason": "gpuops-health: gpu_count: nvidia-smi lists 7 of the 8 GPUs",
         "responding": "1"}]
    assert _value(samples, "node_state", node="gpu03", responding="0", state="down") == 1
    assert _value(samples, "nodes", state="drained") == 1
    assert _value(samples, "partition_nodes", partition="gpu", state="idle") == 1
    assert _value(samples, "partition_nodes", partition="debug", state="drained") == 1


def test_gpus_per_node_and_partition_from_the_gres_columns():
    text = ("gpu01 gpu* gpu:v100s:8(S:0-1) gpu:v100s:3(IDX:0-2)\ngpu02 gpu* gpu:v100s:8(S:0-1) gpu:v100s:0(IDX:N/A)\n"
            "gpu01 debug gpu:v100s:8(S:0-1) gpu:v100s:3(IDX:0-2)\ncpu01 cpu (null) (null)\n")
    samples = gres_samples(text)
    assert _value(samples, "node_gpus", node="gpu01", kind="allocated") == 3
    assert _value(samples, "partition_gpus", partition="gpu", kind="total") == 16
    assert _value(samples, "partition_gpus", partition="gpu", kind="allocated") == 3
    assert _value(samples, "partition_gpus", partition="cpu", kind="total") == 0
    with pytest.raises(SlurmMetricsError, match="sinfo [(]Gres[)] line 1: 2 fields, expected 4"):
        gres_samples("gpu01 gpu\n")


def test_jobs_per_state_account_user_and_pending_reasons():
    squeue = ("11|gpu|RUNNING|chem|alice|8|None\n12|gpu|PENDING|chem|alice|4|Resources\n"
              "13|gpu|PENDING|phys|bob|1|BeginTime\n14|gpu|PENDING|phys|bob|1|BeginTime\n")
    samples = job_samples(squeue)
    assert _value(samples, "jobs", state="PENDING", account="phys", user="bob", partition="gpu") == 2
    assert _value(samples, "job_cpus", state="RUNNING", account="chem", user="alice") == 8
    assert _value(samples, "jobs_pending", partition="gpu", reason="BeginTime") == 2
    assert _value(samples, "jobs_pending", partition="gpu", reason="Resources") == 1


def test_fair_share_and_sdiag_over_real_captures():
    samples = share_samples(_read("sshare", "SckyzO_slurm_exporter_24.11.7_fairshare.txt"))
    assert {name for name, dummy, dummy2 in samples} == {"gpuops_slurm_fairshare", "gpuops_slurm_share_raw_usage",
                                                         "gpuops_slurm_share_usage_normalized",
                                                         "gpuops_slurm_shares_normalized"}
    stats = sdiag_samples(_read("sdiag", "SckyzO_slurm_exporter_24.11.7.txt"))
    assert _value(stats, "scheduler_stat", section="general", stat="server_thread_count") >= 1
    assert any(name == "gpuops_slurm_rpc_count" for name, dummy, dummy2 in stats)


def test_scontrol_ping():
    assert ping_samples("Slurmctld(primary) at ctl is UP\nSlurmctld(backup) at ctl2 is DOWN\n") == [
        ("gpuops_slurm_controller_up", {"controller": "ctl", "role": "primary"}, 1),
        ("gpuops_slurm_controller_up", {"controller": "ctl2", "role": "backup"}, 0),
        ("gpuops_slurm_controller_in_control", {"controller": "ctl", "role": "primary"}, 1),
        ("gpuops_slurm_controller_in_control", {"controller": "ctl2", "role": "backup"}, 0)]


@pytest.mark.parametrize("text, in_control", [
    # scontrol ping's lines (scontrol.c of 22.05.8 and 26.05.3): primary, backup (two controllers) or backupN
    ("Slurmctld(primary) at ctl is DOWN\nSlurmctld(backup) at ctl2 is UP\n"
     "*****************************************\n** RESTORE SLURMCTLD DAEMON TO SERVICE **\n", ["ctl2"]),
    ("Slurmctld(primary) at a is DOWN\nSlurmctld(backup1) at b is DOWN\nSlurmctld(backup2) at c is UP\n", ["c"]),
    ("Slurmctld(primary) at a is UP\nSlurmctld(backup1) at b is UP\nSlurmctld(backup2) at c is UP\n", ["a"]),
    ("Slurmctld(primary) at a is DOWN\nSlurmctld(backup) at b is DOWN\n", []),
])
def test_the_controller_in_control_is_the_first_that_answers(text, in_control):
    samples = ping_samples(text)
    assert [labels["controller"] for name, labels, value in samples
            if name == "gpuops_slurm_controller_in_control" and value == 1] == in_control
    assert len([name for name, dummy, dummy2 in samples if name.endswith("_in_control")]) == text.count("Slurmctld(")
    with pytest.raises(SlurmMetricsError, match="no 'Slurmctld"):
        ping_samples("garbage")


def test_parse_ping_gives_each_controller_in_order():
    text = "Slurmctld(primary) at a is DOWN\nSlurmctld(backup1) at b is UP\nSlurmctld(backup2) at c is UP\n"
    assert parse_ping(text) == [
        {"controller": "a", "role": "primary", "up": False, "in_control": False},
        {"controller": "b", "role": "backup1", "up": True, "in_control": True},
        {"controller": "c", "role": "backup2", "up": True, "in_control": False}]
    for garbage in ("", None, 3, "Slurmctld is UP"):
        with pytest.raises(SlurmMetricsError):
            parse_ping(garbage)


def test_a_command_that_fails_or_prints_garbage_is_command_up_0_and_the_rest_still_counts():
    samples = slurm_samples({
        "sinfo": {"out": "gpu01|gpu*|idle|none\n"},
        "squeue": {"out": "not|squeue"},
        "sacctmgr": {"error": "sacctmgr did not answer within 10s"},
        "scontrol_ping": {"error": "rc 1: Unable to contact slurm controller"},
    })
    assert _value(samples, "command_up", command="sinfo") == 1
    assert _value(samples, "command_up", command="squeue") == 0
    assert "squeue line 1: 2 fields, expected 7" in [labels["reason"] for name, labels, dummy in samples
                                                     if labels.get("command") == "squeue"][0]
    assert _value(samples, "dbd_up") == 0
    assert _value(samples, "controller_up", role="primary") == 0
    assert _value(samples, "node_state", node="gpu01") == 1
    assert set(COMMANDS) == {"sinfo", "sinfo_gres", "squeue", "sshare", "sdiag", "scontrol_ping", "sacctmgr"}


def test_a_recorded_scrape_of_1000_jobs():
    recorded = os.path.join("recorded", "slurm-22.05-1000-jobs")
    results = dict((name, {"out": _read(recorded, name + ".txt")}) for name in COMMANDS)
    samples = slurm_samples(results)
    assert [labels["command"] for name, labels, value in samples if name.endswith("command_up") and value == 1] == \
        sorted(COMMANDS)
    assert _value(samples, "jobs", state="PENDING", account="chem", user="alice", partition="gpu") == 1000
    assert _value(samples, "jobs_pending", partition="gpu", reason="JobHeldUser") == 1000
    assert _value(samples, "partition_gpus", partition="gpu", kind="total") == 16
    assert _value(samples, "controller_up", controller="mo-ctl", role="primary") == 1
    assert _value(samples, "dbd_up") == 1
    assert _value(samples, "scheduler_stat", section="general", stat="jobs_submitted") >= 1000


TWO_UP = {"out": "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is UP\n"}
TAKEN_OVER = {"out": "Slurmctld(primary) at ctl1 is DOWN\nSlurmctld(backup) at ctl2 is UP\n"}


@pytest.mark.parametrize("ping, own, active", [
    (TWO_UP, "ctl1", True),            # the primary in control reports the cluster
    (TWO_UP, "ctl2", False),           # the standby backup reports scontrol ping only
    (TAKEN_OVER, "ctl2", True),        # the backup that took over
    (TAKEN_OVER, "ctl1", False),       # (an exporter on a primary whose slurmctld is down)
    ({"out": "Slurmctld(primary) at ctl is UP\n"}, "other-name", True),   # one controller: always
    (TWO_UP, "not-a-controller", True),
    ({"out": "Slurmctld(primary) at a is DOWN\nSlurmctld(backup) at b is DOWN\n"}, "b", True),
    ({"error": "rc 1: Unable to contact slurm controller"}, "ctl2", True),
    ({"out": "garbage"}, "ctl2", True),
    (None, None, True),
])
def test_only_the_exporter_of_the_controller_in_control_reports_the_cluster(ping, own, active):
    assert exporter_active(ping, own) is active


def test_takeover_note():
    assert takeover_samples("1795807273\n", "ha-ctl2") == [
        ("gpuops_slurm_controller_last_takeover_timestamp_seconds", {"controller": "ha-ctl2"}, 1795807273)]
    assert takeover_samples(None, "ha-ctl2") == []
    for garbage in ("", "yesterday\n", "12 34", 3.5):
        with pytest.raises(SlurmMetricsError):
            takeover_samples(garbage, "ha-ctl2")


def test_the_note_the_trigger_writes_is_the_one_the_exporter_reads():
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "_slurm_common", "vars",
                           "main.yml")) as handle:
        role_vars = yaml.safe_load(handle)
    assert role_vars["__slurm_takeover_note"] == TAKEOVER_NOTE
