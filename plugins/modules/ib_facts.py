#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ib_facts
short_description: Gather InfiniBand and RoCE ports and the NCCL environment for them
version_added: 0.1.0
description:
  - Reads C(ibstat) and, where present, sysfs (C(class/infiniband) and C(class/net)) and returns
    C(ansible_facts.gpuops_ib) with every HCA and port, the ports NCCL should use and the C(NCCL_*)
    variables that make it use exactly those.
  - C(NCCL_IB_HCA) is written in the exact-match form (C(=mlx5_0:1,mlx5_3:1)) in natural device order
    (C(mlx5_2) before C(mlx5_10)). Without the leading C(=) NCCL matches names by prefix, so C(mlx5_1)
    would also take C(mlx5_10).
  - C(NCCL_IB_GID_INDEX) is set only when every chosen port is RoCE (link layer Ethernet) and all of them
    have the same RoCE v2 IPv4 GID index (from sysfs C(gids/N) and C(gid_attrs/types/N)); otherwise it is
    left unset so NCCL picks the index itself.
  - C(NCCL_SOCKET_IFNAME) is written in the exact form (C(=eth0)) for the interface holding an address in
    O(bootstrap_cidr), or else the interface holding O(bootstrap_address); never C(lo) or C(docker*).
  - C(NCCL_IB_DISABLE=1) is set when no port qualifies. A host without HCAs (no C(ibstat), no devices)
    gets empty facts and C(NCCL_IB_DISABLE=1); that is not a failure.
  - When C(ibstat) prints some devices and then fails on one (C(ibpanic), exit code 255), the devices it
    printed are used and a warning names the one it failed on. When C(ibstat) is not installed, or fails
    before printing any device for a reason that names no device (C(ib_umad) not loaded), the ports are
    read from sysfs alone.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  ibstat:
    description:
      - Path of the C(ibstat) binary (package C(infiniband-diags)).
      - By default it is looked up in E(PATH), C(/usr/sbin) and C(/sbin); when it is not found the ports
        are read from sysfs.
    type: path
  sysfs_root:
    description:
      - Root of the sysfs tree to read (C(<sysfs_root>/class/infiniband), C(<sysfs_root>/class/net)).
      - Tests point it at a captured tree.
    type: path
    default: /sys
  select:
    description:
      - Which Active ports NCCL should use.
      - V(auto) takes the InfiniBand ports if there are any, otherwise the RoCE (Ethernet link layer) ports.
      - V(ib) takes only InfiniBand ports, V(roce) only RoCE ports, V(all) both.
    type: str
    choices: [auto, ib, roce, all]
    default: auto
  highest_rate_only:
    description:
      - Of the selected ports, keep only those at the highest rate. Slower ports are usually management or
        storage links.
    type: bool
    default: true
  exclude_hcas:
    description:
      - HCA names (or shell patterns such as C(mlx5_bond_*)) never to select.
    type: list
    elements: str
    default: []
  bootstrap_address:
    description:
      - Address of the node on the network NCCL bootstraps over; the interface holding it becomes
        C(NCCL_SOCKET_IFNAME). A host name is resolved on the node.
      - When neither this nor O(bootstrap_cidr) is set, the address the SSH connection of Ansible arrived
        on (E(SSH_CONNECTION)) is used. C(sudo) usually drops that variable, so with C(become) set this
        option to C({{ ansible_host }}) or set O(bootstrap_cidr).
    type: str
  bootstrap_cidr:
    description:
      - Network (for example C(10.10.0.0/16)) of the bootstrap interface. Takes precedence over
        O(bootstrap_address).
    type: str
  interfaces:
    description:
      - Addresses of the node's interfaces, as a mapping of interface name to a list of C(address/prefix)
        strings. By default they are read with C(ip -o addr show).
    type: dict
  timeout:
    description:
      - Seconds C(ibstat) may run (enforced with C(timeout) from coreutils when it is installed). V(0)
        means no limit.
    type: int
    default: 30
extends_documentation_fragment:
  - gpuops.cluster.attributes
  - gpuops.cluster.attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
notes:
  - Commands run with C(LC_ALL=C). The module changes nothing on the host.
  - Addresses are compared with the Python standard library (C(ipaddress)); no extra Python package is
    needed on the node.
"""

EXAMPLES = r"""
- name: Find the RDMA ports and the NCCL environment
  gpuops.cluster.ib_facts:
    bootstrap_address: "{{ ansible_host }}"

- name: Write the NCCL environment
  ansible.builtin.copy:
    dest: /etc/nccl.conf
    content: |
      {% for key, value in gpuops_ib.nccl_env | dictsort %}
      {{ key }}={{ value }}
      {% endfor %}
    mode: "0644"

- name: RoCE ports only, any rate, bootstrap over the 10.10.0.0/16 network, leave the bond alone
  gpuops.cluster.ib_facts:
    select: roce
    highest_rate_only: false
    exclude_hcas: [mlx5_bond_*]
    bootstrap_cidr: 10.10.0.0/16
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    gpuops_ib:
      description: RDMA devices, the ports chosen for NCCL and the NCCL environment.
      returned: always
      type: dict
      contains:
        source:
          description: Where the ports were read from, C(ibstat), C(sysfs), or C(none) when the host has no HCA.
          returned: always
          type: str
          sample: ibstat
        hcas:
          description:
            - One entry per HCA in natural name order, with C(name), C(ca_type), C(firmware_version),
              C(node_guid) and C(ports).
            - Each port has C(port), C(state), C(physical_state), C(rate_gbps), C(link_layer) (C(InfiniBand)
              or C(Ethernet)), C(netdev) when known and, for Ethernet ports, C(roce_v2_gid_index) (null when
              sysfs does not tell).
          returned: always
          type: list
          elements: dict
          sample: [{"name": "mlx5_0", "ca_type": "MT4129", "firmware_version": "28.39.1002",
                    "node_guid": "0x946dae0300cde72c",
                    "ports": [{"port": 1, "state": "Active", "physical_state": "LinkUp", "rate_gbps": 400,
                               "link_layer": "InfiniBand", "netdev": "ibp26s0"}]}]
        failed_hcas:
          description: Devices C(ibstat) failed on (C(ibpanic)); they are not in RV(ansible_facts.gpuops_ib.hcas).
          returned: always
          type: list
          elements: str
          sample: ["mlx5_8"]
        selected:
          description: The ports chosen for NCCL, as C(device:port), in natural order.
          returned: always
          type: list
          elements: str
          sample: ["mlx5_0:1", "mlx5_3:1"]
        nccl_env:
          description:
            - NCCL variables, all strings. C(NCCL_IB_HCA) when ports were selected, else C(NCCL_IB_DISABLE=1);
              C(NCCL_IB_GID_INDEX) only for RoCE ports sharing one RoCE v2 IPv4 GID index;
              C(NCCL_SOCKET_IFNAME) when the bootstrap interface was found.
          returned: always
          type: dict
          sample: {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_3:1", "NCCL_SOCKET_IFNAME": "=eth0"}
        bootstrap:
          description: The C(address) or C(cidr) used to find the bootstrap C(interface), and that interface (nulls when unknown).
          returned: always
          type: dict
          sample: {"address": "10.10.1.5", "cidr": null, "interface": "eth0"}
"""

import ipaddress
import os
import socket

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap, clip
from ansible_collections.gpuops.cluster.plugins.module_utils.common._timed_command import TimedCommand
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import (
    IbFactsError,
    build_facts,
    expected_ibstat_devices,
    hcas_from_sysfs,
    ibpanic_lines,
    merge_hcas,
    natural_key,
    parse_ibstat,
    parse_ip_addr,
    read_sysfs,
    socket_ifname,
    ssh_server_address,
)

SBIN = ["/usr/sbin", "/sbin"]


def _last_line(text):
    """The last non-empty line of text on one line, at most 300 characters (for messages and warnings)."""
    lines = (text or "").strip().splitlines()
    return clip(lines[-1], 297) if lines else "no output"


def _run_ibstat(module, ibstat, timeout):
    argv = [ibstat]
    rc, out, err, timed_out = TimedCommand(module, timeout, "ibstat").run(argv)
    if timed_out:
        module.fail_json(msg="ib_facts: %s did not finish within %d s" % (ibstat, timeout),
                         cmd=argv, rc=rc, stdout=cap(out), stderr=cap(err))
    return argv, rc, out, err


def _hcas(module, sysfs):
    """(hcas, failed, source) from ibstat, or from sysfs when ibstat is missing or unusable."""
    params = module.params
    class_dir = os.path.join(params["sysfs_root"], "class", "infiniband")
    ibstat = params["ibstat"]
    if ibstat:
        if not (os.path.isfile(ibstat) and os.access(ibstat, os.X_OK)):
            module.fail_json(msg="ib_facts: ibstat %s is not an executable file" % ibstat)
    else:
        ibstat = module.get_bin_path("ibstat", opt_dirs=SBIN)
    usable = expected_ibstat_devices(sysfs)
    if ibstat:
        argv, rc, out, err = _run_ibstat(module, ibstat, params["timeout"])
        panics = ibpanic_lines(out) + ibpanic_lines(err)
        if rc != 0 and not panics:
            module.fail_json(msg="ib_facts: %s failed (rc=%d): %s" % (ibstat, rc, _last_line(err or out)),
                             cmd=argv, rc=rc, stdout=cap(out), stderr=cap(err))
        try:
            parsed, failed = parse_ibstat(out, err, usable)
        except IbFactsError as exc:
            module.fail_json(msg=cap("ib_facts: %s" % exc), cmd=argv, rc=rc, stdout=cap(out), stderr=cap(err))
        if parsed or failed:
            if failed:
                printed = set(h["name"] for h in parsed)
                missing = [n for n in usable if n not in printed and n not in failed]
                message = "ib_facts: ibstat failed on %s (%s); using the %d device(s) it printed before" % (
                    clip(", ".join(failed), 297), clip([line for device, line in panics if device in failed][0], 297),
                    len(parsed))
                if missing:
                    message += "; not reported either: %s" % clip(", ".join(sorted(missing, key=natural_key)), 997)
                module.warn(message)
            return merge_hcas(parsed, sysfs), failed, "ibstat"
        if not panics:
            return [], [], "none"
        module.warn("ib_facts: %s; reading %s instead" % (clip(panics[0][1], 297), class_dir))
    hcas = hcas_from_sysfs(dict((name, sysfs[name]) for name in usable))
    return hcas, [], "sysfs" if hcas else "none"


def _is_ip(text):
    try:
        ipaddress.ip_address(text.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _addresses(module, address):
    if _is_ip(address):
        return [address]
    try:
        infos = socket.getaddrinfo(address, None)
    except (socket.gaierror, UnicodeError) as exc:
        module.warn("ib_facts: cannot resolve bootstrap_address %s (%s); NCCL_SOCKET_IFNAME left unset" % (address, exc))
        return []
    result = []
    for info in infos:
        if info[4][0] not in result:
            result.append(info[4][0])
    return result


def _interfaces(module):
    if module.params["interfaces"] is not None:
        return module.params["interfaces"]
    ip = module.get_bin_path("ip", opt_dirs=SBIN)
    if not ip:
        module.warn("ib_facts: the ip command is not installed; NCCL_SOCKET_IFNAME left unset")
        return {}
    argv = [ip, "-o", "addr", "show"]
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"}, errors="replace")
    if rc != 0:
        module.warn("ib_facts: %s failed (rc=%d): %s; NCCL_SOCKET_IFNAME left unset" % (" ".join(argv), rc, _last_line(err or out)))
        return {}
    return parse_ip_addr(out)


def _bootstrap(module):
    """(interfaces, address, cidr) for the NCCL_SOCKET_IFNAME lookup."""
    params = module.params
    cidr = params["bootstrap_cidr"] or None
    address = params["bootstrap_address"] or None
    if not cidr and not address:
        address = ssh_server_address(os.environ.get("SSH_CONNECTION"))
    if not cidr and not address:
        return {}, None, None
    interfaces = _interfaces(module)
    if cidr:
        return interfaces, None, cidr
    candidates = _addresses(module, address)
    for candidate in candidates:
        if socket_ifname(interfaces, candidate):
            return interfaces, candidate, None
    return interfaces, (candidates[0] if candidates else None), None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            ibstat=dict(type="path"),
            sysfs_root=dict(type="path", default="/sys"),
            select=dict(type="str", default="auto", choices=["auto", "ib", "roce", "all"]),
            highest_rate_only=dict(type="bool", default=True),
            exclude_hcas=dict(type="list", elements="str", default=[]),
            bootstrap_address=dict(type="str"),
            bootstrap_cidr=dict(type="str"),
            interfaces=dict(type="dict"),
            timeout=dict(type="int", default=30),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        sysfs = read_sysfs(params["sysfs_root"])
        hcas, failed, source = _hcas(module, sysfs)
        interfaces, address, cidr = _bootstrap(module)
        facts = build_facts(hcas, failed, source, params["select"], params["highest_rate_only"],
                            params["exclude_hcas"], interfaces, address, cidr)
    except IbFactsError as exc:
        module.fail_json(msg=cap("ib_facts: %s" % exc))
    interface = facts["nccl_env"].get("NCCL_SOCKET_IFNAME", "=")[1:] or None
    if (address or cidr) and interface is None:
        module.warn("ib_facts: no interface other than lo or docker* holds %s; NCCL_SOCKET_IFNAME left unset"
                    % ("an address in %s" % cidr if cidr else address))
    facts["bootstrap"] = {"address": address, "cidr": cidr, "interface": interface}
    module.exit_json(changed=False, ansible_facts={"gpuops_ib": facts})


if __name__ == "__main__":
    main()
