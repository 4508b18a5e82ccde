# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""MPI filter: mpi_ucx_env (docs in mpi_ucx_env.yml beside)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._mpi_env import MpiEnvError, ucx_env


def mpi_ucx_env(ib_fact):
    """UCX and OpenMPI transport variables from the gpuops_ib fact."""
    try:
        return ucx_env(ib_fact)
    except (MpiEnvError, AttributeError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("mpi_ucx_env: %s" % exc)


class FilterModule(object):
    """MPI filters."""

    def filters(self):
        return {"mpi_ucx_env": mpi_ucx_env}
