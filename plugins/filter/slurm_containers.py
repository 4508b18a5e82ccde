# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the slurm_containers role: what a host gets of enroot and pyxis, the source tarballs checked, why a
host gets no NVIDIA container CLI (docs: slurm_containers_*.yml; logic: module_utils/slurm/_slurm_containers.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_containers
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def slurm_containers_plan(settings, facts):
    """enroot's paths, whether pyxis must be (re)built, its plugstack line, and every input error."""
    try:
        return _slurm_containers.plan(settings, facts)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("slurm_containers_plan: unexpected input (%s: %s)"
                                 % (type(exc).__name__, clip(str(exc), 200)))


def slurm_containers_source_errors(checked):
    """One message per source tarball on the Ansible controller that is missing or has another SHA-256."""
    return _slurm_containers.source_errors(checked)


def slurm_containers_nvidia_cli_skip(setting, gpu_host, container):
    """Why this host gets no NVIDIA container CLI, or '' when it gets one."""
    return _slurm_containers.nvidia_cli_skip(setting, gpu_host, container)


class FilterModule(object):
    """slurm_containers filters."""

    def filters(self):
        return {
            "slurm_containers_plan": slurm_containers_plan,
            "slurm_containers_source_errors": slurm_containers_source_errors,
            "slurm_containers_nvidia_cli_skip": slurm_containers_nvidia_cli_skip,
        }
