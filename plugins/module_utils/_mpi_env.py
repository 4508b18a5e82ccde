# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""MPI transport settings (UCX and OpenMPI) from a node's RDMA facts.

The rules, from the ``gpuops_ib`` fact (``ib_facts``: the ports it selected
for NCCL, the HCAs with their link layers, ``nccl_env``):

* RDMA ports selected: UCX on those ports only (``UCX_NET_DEVICES`` the
  ``hca:port`` list, in the fact's order), reliable and unreliable datagram
  verbs plus shared memory (``UCX_TLS=rc,ud,sm,self``); on RoCE, the RoCE v2
  GID index NCCL uses (``UCX_IB_GID_INDEX``). OpenMPI uses UCX for
  point-to-point (``OMPI_MCA_pml=ucx``): a job that cannot use the fabric
  fails instead of falling back to TCP unseen.
* No RDMA port: TCP and shared memory (``UCX_TLS=tcp,sm,self``), on NCCL's
  bootstrap interface when the fact names one (``UCX_NET_DEVICES`` and
  OpenMPI's ``btl_tcp_if_include``); OpenMPI keeps its own choice of PML.

Pure functions, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_PORT = re.compile(r"^[A-Za-z0-9_.-]+:[0-9]{1,3}$")
_IFNAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")


class MpiEnvError(ValueError):
    """The RDMA facts are not in the shape ib_facts gives."""


def _link_layers(hcas, selected):
    layers = {}
    for hca in hcas or []:
        if not isinstance(hca, dict):
            raise MpiEnvError("gpuops_ib.hcas holds %r, not an HCA" % (hca,))
        for port in hca.get("ports") or []:
            if isinstance(port, dict):
                layers["%s:%s" % (hca.get("name"), port.get("port"))] = port
    missing = [p for p in selected if p not in layers]
    if missing:
        raise MpiEnvError("gpuops_ib.selected names %s, which gpuops_ib.hcas does not have" % ", ".join(missing))
    return [layers[p] for p in selected]


def ucx_env(ib_fact):
    """{name: value} of the UCX and OpenMPI variables for a node (see the module docstring)."""
    ib_fact = ib_fact or {}
    if not isinstance(ib_fact, dict):
        raise MpiEnvError("gpuops_ib is %r, not the ib_facts fact" % (ib_fact,))
    selected = ib_fact.get("selected") or []
    if not isinstance(selected, list) or not all(isinstance(p, str) and _PORT.match(p) for p in selected):
        raise MpiEnvError("gpuops_ib.selected is %r, not a list of hca:port" % (selected,))
    nccl = ib_fact.get("nccl_env") or {}
    if selected:
        ports = _link_layers(ib_fact.get("hcas"), selected)
        env = {"UCX_NET_DEVICES": ",".join(selected), "UCX_TLS": "rc,ud,sm,self", "OMPI_MCA_pml": "ucx"}
        if all(p.get("link_layer") == "Ethernet" for p in ports):
            indexes = set(p.get("roce_v2_gid_index") for p in ports)
            if len(indexes) == 1 and None not in indexes:
                env["UCX_IB_GID_INDEX"] = str(indexes.pop())
        return env
    env = {"UCX_TLS": "tcp,sm,self"}
    ifname = str(nccl.get("NCCL_SOCKET_IFNAME") or "").lstrip("=^")
    if ifname:
        if not _IFNAME.match(ifname):
            raise MpiEnvError("NCCL_SOCKET_IFNAME %r is not an interface name" % ifname)
        env["UCX_NET_DEVICES"] = ifname
        env["OMPI_MCA_btl_tcp_if_include"] = ifname
    return env
