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

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip, shown

_PORT = re.compile(r"^[A-Za-z0-9_.-]+:[0-9]{1,3}\Z")
_IFNAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}\Z")


class MpiEnvError(ValueError):
    """The RDMA facts are not in the shape ib_facts gives."""


def _link_layers(hcas, selected):
    layers = {}
    if not isinstance(hcas or [], list):
        raise MpiEnvError("gpuops_ib.hcas is %s, not a list of HCAs" % shown(hcas))
    for hca in hcas or []:
        if not isinstance(hca, dict) or not isinstance(hca.get("ports") or [], list):
            raise MpiEnvError("gpuops_ib.hcas holds %s, not an HCA" % shown(hca))
        for port in hca.get("ports") or []:
            if isinstance(port, dict) and isinstance(hca.get("name"), str) and _is_port_number(port.get("port")):
                layers["%s:%s" % (hca["name"], port["port"])] = port
    missing = [p for p in selected if p not in layers]
    if missing:
        raise MpiEnvError("gpuops_ib.selected names %s, which gpuops_ib.hcas does not have"
                          % clip(", ".join(missing), 200))
    return [layers[p] for p in selected]


def _is_port_number(value):
    return (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1000) or (
        isinstance(value, str) and bool(re.match(r"[0-9]{1,3}\Z", value)))


def ucx_env(ib_fact):
    """{name: value} of the UCX and OpenMPI variables for a node (see the module docstring)."""
    ib_fact = ib_fact or {}
    if not isinstance(ib_fact, dict):
        raise MpiEnvError("gpuops_ib is %s, not the ib_facts fact" % shown(ib_fact))
    selected = ib_fact.get("selected") or []
    if not isinstance(selected, list) or not all(isinstance(p, str) and _PORT.match(p) for p in selected):
        raise MpiEnvError("gpuops_ib.selected is %s, not a list of hca:port" % shown(selected))
    nccl = ib_fact.get("nccl_env") or {}
    if not isinstance(nccl, dict):
        raise MpiEnvError("gpuops_ib.nccl_env is %s, not a mapping of NCCL variables" % shown(nccl))
    if selected:
        ports = _link_layers(ib_fact.get("hcas"), selected)
        env = {"UCX_NET_DEVICES": ",".join(selected), "UCX_TLS": "rc,ud,sm,self", "OMPI_MCA_pml": "ucx"}
        if all(p.get("link_layer") == "Ethernet" for p in ports):
            indexes = [p.get("roce_v2_gid_index") for p in ports]
            if _is_port_number(indexes[0]) and all(index == indexes[0] for index in indexes):
                env["UCX_IB_GID_INDEX"] = str(indexes[0])
        return env
    env = {"UCX_TLS": "tcp,sm,self"}
    ifname = nccl.get("NCCL_SOCKET_IFNAME") or ""
    if not isinstance(ifname, str):
        raise MpiEnvError("NCCL_SOCKET_IFNAME %s is not an interface name" % shown(ifname))
    ifname = ifname.lstrip("=^")
    if ifname:
        if not _IFNAME.match(ifname):
            raise MpiEnvError("NCCL_SOCKET_IFNAME %s is not an interface name" % shown(ifname))
        env["UCX_NET_DEVICES"] = ifname
        env["OMPI_MCA_btl_tcp_if_include"] = ifname
    return env
