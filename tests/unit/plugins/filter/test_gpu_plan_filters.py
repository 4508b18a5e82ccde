# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPU stack's filters over hostvars and drain reasons (plugins/filter/gpu_plan.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.filter.gpu_plan import (
    FilterModule,
    gpu_failed_drain_reason,
    gpu_hardware,
    nvidia_driver_failures,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import GPU_FAILED_REASON


def test_the_filters_are_there():
    filters = FilterModule().filters()
    assert filters["gpu_failed_drain_reason"] is gpu_failed_drain_reason
    assert filters["nvidia_driver_failures"] is nvidia_driver_failures


def test_the_nvidia_smi_drain_reason_is_the_slurm_plays_own():
    assert gpu_failed_drain_reason("") == GPU_FAILED_REASON == "gpuops: nvidia-smi failed"
    assert gpu_failed_drain_reason(None) == GPU_FAILED_REASON
    assert gpu_failed_drain_reason("Failed to initialize NVML:\n Driver/library version mismatch") == (
        "gpuops: nvidia-smi failed: Failed to initialize NVML: Driver/library version mismatch")
    assert len(gpu_failed_drain_reason("x" * 500)) == len(GPU_FAILED_REASON) + 2 + 123


def test_nvidia_driver_failures_reads_the_hosts_given():
    hostvars = {"gpu01": {"__nvidia_driver_failed": "gpuops: NVIDIA driver change failed at Install: no candidate"},
                "gpu02": {}}
    assert nvidia_driver_failures(hostvars, ["gpu01", "gpu02", "gpu03"]) == {
        "gpu01": "gpuops: NVIDIA driver change failed at Install: no candidate"}
    assert nvidia_driver_failures(hostvars, None) == {}


def test_gpu_hardware():
    assert FilterModule().filters()["gpu_hardware"] is gpu_hardware
    assert gpu_hardware([{"bus_id": "0000:3b:00.0"}], image=None, virtualization_role="guest",
                        virtualization_type="lxc", container_types=["lxc"]) == {
        "hardware": False, "container": True, "reason": "running in a lxc container"}
    assert gpu_hardware([{"bus_id": "0000:3b:00.0"}])["hardware"] is True
    # the collection's container types by default
    assert gpu_hardware([{"bus_id": "0000:3b:00.0"}], virtualization_role="guest", virtualization_type="docker")[
        "reason"] == "running in a docker container"
