# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The active checks' pair check over the fabric (module_utils/health/_fabric_check.py): partners under one leaf
switch, the expectation from the RDMA ports, the measurement's parser and the rule of blame."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import parse_ibstat
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _fabric_check as fabric
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health as health
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    parse_scontrol_nodes,
    parse_scontrol_topology,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import selected_ports

HERE = os.path.dirname(__file__)
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "fixtures"))
TREE = ("SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=gpu[01-04]\n"
        "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=gpu[05-06]\n"
        "SwitchName=spine Level=1 LinkSpeed=1 Switches=leaf[1-2]\n")
NOW = 1800000000.0


def _states(text):
    return parse_scontrol_nodes(text)


IDLE = _states("NodeName=gpu01 State=IDLE\nNodeName=gpu02 State=IDLE\nNodeName=gpu03 State=MIXED\n"
               "NodeName=gpu04 State=IDLE\n")


def test_partners_follow_the_ring_of_the_leaf_switch():
    topology = parse_scontrol_topology(TREE)
    assert fabric.leaf_partners("gpu01", topology) == {"leaf": "leaf1", "partners": ["gpu02", "gpu03", "gpu04"],
                                                       "why": ""}
    # The ring: gpu03's first partner is gpu04, then round to gpu01; no node is every node's first partner.
    assert fabric.leaf_partners("gpu03", topology)["partners"] == ["gpu04", "gpu01", "gpu02"]
    assert fabric.leaf_partners("gpu06", topology)["partners"] == ["gpu05"]


def test_a_partner_out_of_service_or_unknown_is_left_out():
    topology = parse_scontrol_topology(TREE)
    states = _states("NodeName=gpu02 State=IDLE+DRAIN Reason=cable\nNodeName=gpu03 State=DOWN*\n"
                     "NodeName=gpu04 State=ALLOCATED\n")
    assert fabric.leaf_partners("gpu01", topology, states)["partners"] == ["gpu04"]
    alone = fabric.leaf_partners("gpu01", topology, _states("NodeName=gpu02 State=IDLE+DRAIN Reason=x\n"))
    assert alone["partners"] == [] and alone["why"] == "no other node under leaf1 is in service (3 others)"


def test_without_a_switch_tree_there_is_no_partner_and_the_reason_says_why():
    block = parse_scontrol_topology("BlockName=b1 BlockIndex=0 Nodes=gpu[01-02] BlockSize=2\n")
    assert fabric.leaf_partners("gpu01", block)["why"].startswith("Slurm runs without a switch tree")
    assert fabric.leaf_partners("gpu01", parse_scontrol_topology(""))["partners"] == []
    assert fabric.leaf_partners("gpu09", parse_scontrol_topology(TREE))["why"] == (
        "gpu09 is under no leaf switch of Slurm's topology")


def test_the_expectation_comes_from_the_rdma_ports_nccl_uses():
    # A real A100 node's ibstat: eight HDR InfiniBand ports at 200 Gb/s for NCCL, one RoCE port for storage.
    with open(os.path.join(FIXTURES, "ibstat", "gpud_a100_8xIB-1xRoCE_all-active.txt")) as handle:
        text = handle.read()
    hcas, _failed = parse_ibstat(text, "", None)
    names = ["%s:%s" % (hca["name"], port["port"]) for hca in hcas for port in hca["ports"]
             if port["link_layer"] == "InfiniBand"]
    ports = selected_ports({"hcas": hcas, "selected": names})
    assert len(ports) == 8
    exp = fabric.fabric_expectation("gpu01", ports)
    assert exp["value"] == 140.0
    assert exp["source"] == ("slowest node gpu01: 8 ports x 200 Gb/s = 200.0 GB/s x 0.7 (a plain all-reduce's "
                             "share of the line rate)")


def test_a_site_figure_wins_and_no_port_leaves_the_pair_unjudged():
    assert fabric.fabric_expectation("gpu01", [], {"fabric_allreduce": 320}) == {
        "value": 320.0, "source": "node_health_active_expect"}
    exp = fabric.fabric_expectation("gpu01", [])
    assert exp == {"value": None, "source": "gpu01 has no RDMA port for NCCL"}


def test_the_measurement_parser_reads_the_last_json_line_and_rejects_garbage():
    out = "NCCL INFO something\n" + json.dumps({"torch": "2.13.0", "world": 16, "fabric_allreduce": 281.5})
    assert fabric.parse_fabric_measurement(out) == {"value": 281.5, "world": 16}
    assert fabric.parse_fabric_measurement(b'{"world": 4, "error": "torch 2.13.0+cpu sees no CUDA GPU"}') == {
        "error": "torch 2.13.0+cpu sees no CUDA GPU", "world": 4}
    assert fabric.parse_fabric_measurement('{"fabric_allreduce": {"error": "wrong sum"}}') == {"error": "wrong sum"}
    assert fabric.parse_fabric_measurement('{"world": 2}') == {"error": "no fabric_allreduce in the check "
                                                                        "program's document", "world": 2}
    for bad in ("", "Traceback (most recent call last):", "{not json", "[1]", None, 5):
        with pytest.raises(fabric.FabricCheckError):
            fabric.parse_fabric_measurement(bad)


def _entry(partner, value, epoch=NOW - 60, expected=100.0):
    return fabric.fabric_entry(partner, {"value": value}, {"value": expected, "source": "s"}, 0.15, epoch)


def test_one_pair_is_judged_against_the_expectation_less_the_tolerance():
    ok = _entry("gpu02", 90.0)
    assert ok["status"] == "pass" and ok["floor"] == 85.0
    assert ok["message"] == "90.0 GB/s >= 85.0 with gpu02 (expected 100 -15%)"
    bad = _entry("gpu02", 12.0)
    assert bad["status"] == "fail" and bad["message"] == "12.0 GB/s < 85.0 with gpu02 (expected 100 -15%)"
    unjudged = fabric.fabric_entry("gpu02", {"value": 50.0}, {"value": None, "source": "gpu01 has no RDMA port"},
                                   0.15, NOW)
    assert unjudged["status"] == "not_run" and unjudged["message"].endswith("not judged: gpu01 has no RDMA port")
    error = fabric.fabric_entry("gpu02", {"error": "torch sees no CUDA GPU"}, {"value": 100.0}, 0.15, NOW)
    assert error["status"] == "not_run" and error["message"] == "not measured with gpu02: torch sees no CUDA GPU"


PARTNERS = ["gpu02", "gpu03", "gpu04"]


def test_one_failure_blames_nobody_and_asks_for_the_next_partner():
    verdict = fabric.fabric_verdict("gpu01", [_entry("gpu02", 12.0)], PARTNERS, NOW)
    assert verdict["next"] == "gpu03" and verdict["result"]["status"] == "not_run"
    assert verdict["result"]["message"] == ("NCCL all-reduce over the fabric: 12.0 GB/s < 85.0 with gpu02 (expected "
                                            "100 -15%); checked with gpu03 next before either node is blamed")


def test_two_partners_failed_blame_the_node_and_the_drain_names_both():
    records = [_entry("gpu02", 12.0), _entry("gpu03", 11.5)]
    verdict = fabric.fabric_verdict("gpu01", records, PARTNERS, NOW)
    assert verdict["next"] is None and verdict["result"]["status"] == "fail"
    assert verdict["result"]["measured"] == 11.5 and verdict["result"]["expected"] == 100.0
    assert [item["partner"] for item in verdict["result"]["values"]] == ["gpu02", "gpu03"]
    decision = health.decide([verdict["result"]], IDLE["gpu03"], "fabric")
    assert decision["action"] == "drain"
    assert decision["reason"] == ("gpuops-health: fabric_allreduce: NCCL all-reduce over the fabric: 12.0 GB/s < "
                                  "85.0 with gpu02 (expected 100 -15%); 11.5 GB/s < 85.0 with gpu03 (expected 100 "
                                  "-15%)")


def test_a_pass_with_another_partner_clears_the_node_and_names_the_suspect():
    records = [_entry("gpu02", 12.0), _entry("gpu03", 95.0)]
    verdict = fabric.fabric_verdict("gpu01", records, PARTNERS, NOW)
    assert verdict["result"]["status"] == "pass" and verdict["next"] is None
    assert verdict["result"]["message"].endswith("it failed with gpu02 only, which is the suspect")


def test_with_no_other_partner_nothing_is_decided():
    verdict = fabric.fabric_verdict("gpu05", [_entry("gpu06", 12.0)], ["gpu06"], NOW)
    assert verdict["result"]["status"] == "not_run" and verdict["next"] is None
    assert verdict["result"]["message"].endswith("no other partner in service under the leaf switch tells which node "
                                                 "is at fault")


def test_old_results_and_malformed_records_do_not_count_and_the_latest_per_partner_wins():
    records = [_entry("gpu02", 12.0, epoch=NOW - 2 * 86400), _entry("gpu03", 11.0, epoch=NOW - 100),
               _entry("gpu03", 99.0, epoch=NOW - 50), "junk", {"partner": 5}, {"partner": "gpu04", "epoch": "x"},
               {"partner": "gpu04", "epoch": NOW, "status": "maybe"}]
    assert [(entry["partner"], entry["value"]) for entry in fabric.recent(records, NOW)] == [("gpu03", 99.0)]
    verdict = fabric.fabric_verdict("gpu01", records, PARTNERS, NOW)
    assert verdict["result"]["status"] == "pass"
    assert fabric.fabric_verdict("gpu01", None, PARTNERS, NOW)["result"]["message"] == (
        "NCCL all-reduce over the fabric: no pair result in the last 24 h")


def test_the_pair_drain_is_lifted_by_its_own_pass_and_by_an_active_run_that_retests():
    drained = _states("NodeName=gpu01 State=IDLE+DRAIN Reason=gpuops-health: fabric_allreduce: NCCL all-reduce "
                      "over the fabric: 12 [root@2026-11-30T10:00:00]\n")["gpu01"]
    passed = fabric.fabric_verdict("gpu01", [_entry("gpu02", 95.0)], PARTNERS, NOW)["result"]
    assert health.decide([passed], drained, "fabric")["action"] == "resume"
    assert health.held_for(drained) == "fabric_allreduce"
    assert health.decide([], drained, "active")["action"] == "resume"
    # The pair check never lifts another check's drain.
    xid = _states("NodeName=gpu01 State=IDLE+DRAIN Reason=gpuops-health: xid: XID 79\n")["gpu01"]
    assert health.decide([passed], xid, "fabric")["action"] == "none"


def test_the_pair_job_holds_both_nodes_with_a_task_per_gpu_at_the_lowest_priority_or_first_for_a_retest():
    argv = fabric.fabric_job_argv("sbatch", "/usr/local/sbin/gpuops-health", "gpu01", "gpu02", 8, ["gpu"],
                                  "/var/lib/gpuops/health/", 960, 12)
    assert argv == ["sbatch", "--job-name=gpuops-health-fabric-gpu01", "--nodelist=gpu01,gpu02", "--nodes=2",
                    "--ntasks-per-node=1", "--exclusive", "--mem=0", "--nice=10000", "--time=16", "--deadline=now+12hours",
                    "--output=/var/lib/gpuops/health/fabric-job-%j.log", "--parsable", "--partition=gpu",
                    "--gres=gpu:8", "--wrap=/usr/local/sbin/gpuops-health fabric-job"]
    retest = fabric.fabric_job_argv("sbatch", "p", "gpu01", "gpu02", 0, [], "/s", 60, 1, retest=True)
    assert "--priority=TOP" in retest and "--nice=10000" not in retest and "--gres=gpu:0" not in " ".join(retest)


def test_the_measurement_step_starts_a_task_per_gpu_on_both_nodes_overcommitting_only_where_cpus_are_fewer():
    assert fabric.fabric_step_argv("srun", "/py", "/check.py", 8, 112) == [
        "srun", "--nodes=2", "--ntasks=16", "--ntasks-per-node=8", "--kill-on-bad-exit=1", "/py", "/check.py",
        "--fabric"]
    assert "--overcommit" in fabric.fabric_step_argv("srun", "/py", "/check.py", 8, 2)
    assert "--overcommit" not in fabric.fabric_step_argv("srun", "/py", "/check.py", 8, 0)


def test_the_site_may_give_the_pair_figure_by_gpu_model_and_a_wrong_one_is_refused():
    from ansible_collections.gpuops.cluster.plugins.module_utils.health import _active as active
    assert active.settings_errors({"expect": {"H200": {"fabric_allreduce": 320}}}) == []
    assert active.settings_errors({"expect": {"H200": {"fabric_allreduce": 0}}}) == [
        "node_health_active_expect['H200'][fabric_allreduce] must be a positive number (GB/s), not 0"]
    row = active.site_expect({"H200": {"fabric_allreduce": 320}}, {"name": "NVIDIA H200"})
    assert fabric.fabric_expectation("gpu01", [], row)["value"] == 320.0
