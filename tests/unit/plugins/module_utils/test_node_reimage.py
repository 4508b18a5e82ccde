# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rolling reimage's plan and a batch's state (module_utils/slurm/_node_reimage.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_reimage import (
    batch_size,
    batch_status,
    reimage_plan,
)

# scontrol -o show node, Slurm 22.05's fields (trimmed), as the join leaves a node: its Comment names the image.
LINE = ("NodeName={name} Arch=x86_64 CoresPerSocket=2 CPUAlloc=0 CPUTot=2 CPULoad=0.10 AvailableFeatures=(null) "
        "ActiveFeatures=(null) Gres=gpu:nvidia_geforce_rtx_2070:2 NodeAddr={name} NodeHostName={name} "
        "Version=22.05.8 OS=Linux 6.1.0 #1 SMP RealMemory=4096 AllocMem=0 FreeMem=20000 Sockets=1 Boards=1 "
        "State={state} ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu "
        "BootTime=2026-11-30T20:00:00 SlurmdStartTime=2026-11-30T20:00:05 LastBusyTime=2026-11-30T20:01:00 "
        "CfgTRES=cpu=2,mem=4G,billing=2,gres/gpu=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
        "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s{comment}{reason}")


def node(name, state="IDLE", image="gpuops-node:1", reason=None):
    return LINE.format(name=name, state=state, comment=" Comment=gpuops-image=%s" % image if image else "",
                       reason=" Reason=%s [root@2026-11-30T20:10:00]" % reason if reason else "")


def nodes(*lines):
    return "\n".join(lines) + "\n"


FOUR = nodes(node("gpu01"), node("gpu02", "MIXED"), node("gpu03"), node("gpu04", "ALLOCATED"))


@pytest.mark.parametrize("value, total, size", [
    ("25%", 8, 2), ("25%", 3, 1), ("100%", 4, 4), (2, 8, 2), ("3", 8, 3), (" 10 % ", 1000, 100),
])
def test_a_batch_is_a_number_or_a_share(value, total, size):
    assert batch_size(value, total) == (size, None)


@pytest.mark.parametrize("value", ["0", "101%", "-1", "a", True, None, 2.5, "10%%"])
def test_a_wrong_batch_is_named(value):
    size, error = batch_size(value, 8)
    assert size == 0 and error.startswith("node_image_reimage_batch is")


def test_the_nodes_go_in_batches_the_ones_on_the_target_stay():
    plan = reimage_plan(nodes(node("gpu01"), node("gpu02", "MIXED"), node("gpu03", image="gpuops-node:2"),
                              node("gpu04", "ALLOCATED")), ["gpu[01-04]"], "gpuops-node:2", 2)
    assert plan == {"done": ["gpu03"], "todo": ["gpu01", "gpu02", "gpu04"], "skipped": {},
                    "batches": ["gpu[01-02]", "gpu04"], "errors": [],
                    "summary": "to gpuops-node:2: 1 node(s) on it already, 3 to move in 2 batch(es) "
                               "(gpu[01-02]; gpu04)"}


def test_a_down_node_is_named_and_left_out_never_fatal():
    plan = reimage_plan(nodes(node("gpu01"), node("gpu02", "DOWN*", reason="Not responding"), node("gpu03")),
                        ["gpu[01-03]"], "gpuops-node:2", "50%")
    assert plan["skipped"] == {"gpu02": "DOWN*: Not responding [root@2026-11-30T20:10:00]"}
    assert plan["batches"] == ["gpu01", "gpu03"] and plan["errors"] == []
    assert plan["summary"].endswith("not rebooted (down: they boot the new image when they come back): gpu02")


def test_a_node_on_the_target_but_drained_is_moved_again():
    plan = reimage_plan(nodes(node("gpu01", "IDLE+DRAIN", image="gpuops-node:2", reason="gpuops-join: x")),
                        ["gpu01"], "gpuops-node:2", 1)
    assert plan["todo"] == ["gpu01"]


@pytest.mark.parametrize("names, target, batch, words", [
    (["gpu[01-04]"], "gpuops-node", 1, "node_image_reimage_to is"),
    (["gpu[01-04"], "gpuops-node:2", 1, "node_image_reimage_nodes: "),
    ([], "gpuops-node:2", 1, "No node to reimage"),
    (["gpu[01-05]"], "gpuops-node:2", 1, "Slurm does not know gpu05"),
    (["gpu[01-04]"], "gpuops-node:2", "0%", "node_image_reimage_batch is"),
])
def test_a_plan_that_cannot_be_made_says_why(names, target, batch, words):
    plan = reimage_plan(FOUR, names, target, batch)
    assert plan["batches"] == [] and any(error.startswith(words) for error in plan["errors"]), plan["errors"]


def test_garbage_gives_errors_not_exceptions():
    assert reimage_plan("State=IDLE\n", ["gpu01"], "a:1", 1)["errors"][0].startswith("Slurm's node list could not")
    assert reimage_plan(None, None, None, None)["errors"]
    assert batch_status("junk", "gpu01", "a:1")["errors"]
    assert batch_status(FOUR, "gpu[01", "a:1")["errors"]


def test_a_batch_waits_for_its_jobs_and_reboots_then_comes_back():
    target = "gpuops-node:2"
    waiting = batch_status(nodes(node("gpu01", "MIXED+DRAIN+REBOOT_REQUESTED", reason="gpuops reimage"),
                                 node("gpu02", "DOWN+DRAIN+REBOOT_ISSUED", image=target)), "gpu[01-02]", target)
    assert waiting["back"] == [] and waiting["failed"] == {}
    assert waiting["waiting"]["gpu01"].startswith("MIXED+DRAIN+REBOOT_REQUESTED, still on gpuops-image=gpuops-node:1")
    assert waiting["waiting"]["gpu02"].startswith("DOWN+DRAIN+REBOOT_ISSUED (rebooting)")
    back = batch_status(nodes(node("gpu01", image=target), node("gpu02", "MIXED", image=target)), "gpu[01-02]", target)
    assert back == {"back": ["gpu01", "gpu02"], "waiting": {}, "failed": {}, "errors": [], "message": ""}


def test_a_node_that_boots_the_target_drained_fails_the_batch():
    status = batch_status(nodes(node("gpu01", "IDLE+DRAIN", image="gpuops-node:2",
                                     reason="gpuops-join: nvidia-smi failed")), "gpu01", "gpuops-node:2")
    assert status["failed"] == {"gpu01": "IDLE+DRAIN: gpuops-join: nvidia-smi failed [root@2026-11-30T20:10:00]"}
    assert status["back"] == [] and status["waiting"] == {}
    assert status["message"] == "gpu01 booted it but is IDLE+DRAIN: gpuops-join: nvidia-smi failed [root@2026-11-30T20:10:00]"


def test_a_node_its_health_gate_holds_waits_for_its_checks():
    held = node("gpu01", "IDLE+DRAIN", image="gpuops-node:2", reason="gpuops-health: active: checks pending (boot)")
    status = batch_status(nodes(held), "gpu01", "gpuops-node:2")
    assert status["failed"] == {} and status["back"] == []
    assert status["waiting"]["gpu01"].startswith("IDLE+DRAIN (its health checks run): gpuops-health: active: checks pending")
    # A failed check of the same program is a failure.
    failed = node("gpu01", "IDLE+DRAIN", image="gpuops-node:2", reason="gpuops-health: active: gpu_matmul 10 < 90")
    assert list(batch_status(nodes(failed), "gpu01", "gpuops-node:2")["failed"]) == ["gpu01"]


def test_a_node_slurm_does_not_list_waits():
    assert batch_status(nodes(node("gpu01")), "gpu[01-02]", "gpuops-node:1")["waiting"] == {
        "gpu02": "not listed by Slurm"}
