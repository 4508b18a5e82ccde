# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tests of the day-2 playbooks (docs: slurm_node_answering.yml); logic in module_utils/slurm/_slurm_ops.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_ops import SlurmOpsError, node_answering


def slurm_node_answering(node):
    try:
        return node_answering(node)
    except SlurmOpsError as exc:
        raise AnsibleFilterError("slurm_node_answering: %s" % exc)


class TestModule(object):
    """Jinja tests over what slurm_cluster_state returns."""

    def tests(self):
        return {"slurm_node_answering": slurm_node_answering}
