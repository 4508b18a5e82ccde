# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm exporter's readers (module_utils/_slurm_metrics.py) over real captures (tests/fixtures/slurm_exporter)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils._slurm_metrics import (
    SlurmMetricsError,
    count_by,
    parse_pipe,
    parse_sdiag,
    parse_sshare,
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
