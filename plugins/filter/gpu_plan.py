# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU stack plan filters: nvidia_driver_branch, nvidia_driver_plan, nvidia_driver_todo, cuda_plan, gpu_hardware and
the settings checks nvidia_driver_settings_errors and cuda_settings_errors (docs in the .yml files beside)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_plan import (
    GpuPlanError,
    cuda_plan,
    cuda_settings_errors,
    driver_branch,
    driver_failures,
    driver_plan,
    driver_settings_errors,
    driver_todo,
    hardware_state,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import gpu_failed_reason


def _call(name, function, *args):
    try:
        return function(*args)
    except (GpuPlanError, AttributeError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def nvidia_driver_branch(branch, version, default_branch):
    """The driver branch from nvidia_driver_branch, nvidia_driver_version or the OS default."""
    return _call("nvidia_driver_branch", driver_branch, branch, version, default_branch)


def nvidia_driver_plan(settings):
    """What nvidia_driver installs, holds and starts, and from which repository."""
    return _call("nvidia_driver_plan", driver_plan, dict(settings))


def nvidia_driver_todo(plan, probe, settings):
    """What nvidia_driver must change on a host: {pending, changing, repository, hold, blacklist, enable, any}."""
    return _call("nvidia_driver_todo", driver_todo, plan, probe, settings)


def cuda_plan_filter(settings):
    """The CUDA toolkits to install, their packages, prefixes and priorities."""
    return _call("cuda_plan", cuda_plan, dict(settings))


def _merged(name, settings, extra):
    if not isinstance(settings, dict) or not isinstance(extra or {}, dict):
        raise AnsibleFilterError("%s: expected the settings mapping (and a mapping of the other settings)" % name)
    merged = dict(settings)
    merged.update(extra or {})
    return merged


def nvidia_driver_settings_errors(settings, extra=None):
    """Every problem of the nvidia_driver settings (the plan's settings and extra), [] when all is well."""
    return _call("nvidia_driver_settings_errors", driver_settings_errors,
                 _merged("nvidia_driver_settings_errors", settings, extra))


def cuda_settings_errors_filter(settings, extra=None):
    """Every problem of the cuda settings (the plan's settings and extra), [] when all is well."""
    return _call("cuda_settings_errors", cuda_settings_errors, _merged("cuda_settings_errors", settings, extra))


def nvidia_driver_failures(hostvars, hosts):
    """{host: reason} of the hosts where a driver step failed in this run (nvidia_driver's rescue)."""
    return driver_failures(hostvars, list(hosts or []))


def gpu_failed_drain_reason(said):
    """The drain reason of a GPU node whose nvidia-smi failed (the Slurm plays' own): the prefix, then what it said."""
    return gpu_failed_reason(said if said not in (None, "") else None)


def gpu_hardware(pci_gpus, image=False, virtualization_role="", virtualization_type="", container_types=None):
    """{hardware, container, reason}: whether the GPU roles drive real hardware here, and why not."""
    return _call("gpu_hardware", hardware_state, pci_gpus, bool(image), virtualization_role, virtualization_type,
                 container_types)


class FilterModule(object):
    """GPU stack plan filters."""

    def filters(self):
        return {
            "nvidia_driver_branch": nvidia_driver_branch,
            "nvidia_driver_plan": nvidia_driver_plan,
            "nvidia_driver_failures": nvidia_driver_failures,
            "nvidia_driver_todo": nvidia_driver_todo,
            "gpu_failed_drain_reason": gpu_failed_drain_reason,
            "gpu_hardware": gpu_hardware,
            "cuda_plan": cuda_plan_filter,
            "nvidia_driver_settings_errors": nvidia_driver_settings_errors,
            "cuda_settings_errors": cuda_settings_errors_filter,
        }
