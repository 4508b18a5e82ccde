# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RDMA ports and the NCCL environment derived from them, for the ib_facts module.

Pure functions over ``ibstat`` output, a sysfs tree (``<root>/class/infiniband``
and ``<root>/class/net``) and ``ip -o addr show`` output. They raise
IbFactsError, with a one-line reason, on input they cannot read.

NCCL semantics followed (NCCL env docs and src/transport/net_ib, src/misc/socket.cc):

- ``NCCL_IB_HCA`` is written in the exact-match form ``=dev:port,...``: without the
  leading ``=`` NCCL matches by prefix and ``mlx5_1`` also selects ``mlx5_10``.
  Devices are listed in natural order (``mlx5_2`` before ``mlx5_10``).
- NCCL only uses ports in state Active with link layer InfiniBand or Ethernet.
- ``NCCL_IB_GID_INDEX`` matters only for RoCE. It is set only when every chosen
  port is RoCE and has the same RoCE v2 IPv4-mapped GID index; otherwise NCCL
  picks one itself (its default, -1).
- ``NCCL_SOCKET_IFNAME`` is written in the exact form ``=eth0`` and never names
  ``lo`` or a ``docker*`` interface.

Addresses are handled with the standard library ``ipaddress`` module, so the
module needs no extra Python package on the managed node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import ipaddress
import os
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import (
    MAX_DIGITS, as_text, guarded, number_key, small_float, small_int)


class IbFactsError(Exception):
    """Input (command output, sysfs content or an option) that cannot be read."""


SELECT_CHOICES = ("auto", "ib", "roce", "all")

INFINIBAND = "InfiniBand"
ETHERNET = "Ethernet"

# Control characters other than TAB, LF and CR, and DEL (binary output, a
# broken HCA's garbage). Bytes that are not UTF-8 are read as U+FFFD first.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Sysfs attribute files: the same, and the U+FFFD of undecodable bytes.
_NOT_SYSFS_TEXT = re.compile(u"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")

_CA_RE = re.compile(r"^CA '([^'\s]+)'$")
_PORT_RE = re.compile(r"^Port ([0-9]+):$")
# The key of a "Key: value" line (split at its first ':', so the time is linear in the line).
_FIELD_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z ]*$")
_NUMBER_RE = re.compile(r"^[0-9]+(?:\.[0-9]+)?$")
_DIGITS_RE = re.compile(r"^[0-9]+$")
_PANIC_DEVICE_RE = re.compile(r"IB device '([^']+)'|'([^']+)' IB device")
_PORT_REQUIRED = ("State", "Physical state", "Rate", "Link layer")

_SYSFS_STATES = {
    "NOP": "Nop",
    "DOWN": "Down",
    "INIT": "Initializing",
    "ARMED": "Armed",
    "ACTIVE": "Active",
    "ACTIVE_DEFER": "ActiveDefer",
}
_SYSFS_RATE_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?) Gb/sec")
_GUID_RE = re.compile(r"^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){3}$")

_IP_ADDR_RE = re.compile(r"^[0-9]+:\s+([^\s@]+)(?:@\S*)?\s+(inet6?|link/\S+)(?:\s+(\S+))?")


def _clip(text, limit=60):
    return text if len(text) <= limit else text[:limit] + "..."


def _as_text(data, what):
    """data as str, bytes that are not UTF-8 (and lone surrogates) read as U+FFFD; IbFactsError for
    what is not text, or holds NUL or other control characters (binary output)."""
    if not isinstance(data, (str, bytes, bytearray)):
        raise IbFactsError("%s must be text, got %s" % (what, type(data).__name__))
    data = as_text(data, what, IbFactsError)
    match = _NOT_TEXT.search(data)
    if match:
        line = data.count("\n", 0, match.start()) + 1
        raise IbFactsError("%s is not text: control character 0x%02x on line %d" % (what, ord(match.group(0)), line))
    return data


def natural_key(name):
    """Sort key that orders digit runs by value: mlx5_2 before mlx5_10 (any number of digits)."""
    parts = re.split(r"([0-9]+)", name)
    return (tuple(number_key(part) if index % 2 else part for index, part in enumerate(parts)), name)


def _number(text, what):
    """A rate such as '200' or '2.5' as 200 or 2.5; IbFactsError when it is not a finite number."""
    value = small_float(text, what, IbFactsError)
    return int(value) if value.is_integer() else value


# --- ibstat --------------------------------------------------------------------


def ibpanic_lines(text):
    """The ``ibpanic:`` lines of text, as [(device or None, line)].

    ibstat stops at the first device it cannot query, printing
    ``ibpanic: [pid] main: stat of IB device 'mlx5_8' failed: ...`` and
    exiting 255; panics that concern no device (``can't init UMAD library``:
    ib_umad not loaded) give None.
    """
    result = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line.startswith("ibpanic:"):
            continue
        match = _PANIC_DEVICE_RE.search(line)
        device = (match.group(1) or match.group(2)) if match else None
        result.append((device, line))
    return result


def parse_ibstat(text, stderr="", expected_devices=()):
    """HCAs from plain ``ibstat`` output, and the devices it failed on.

    Returns (hcas, failed): hcas is a list of {name, ca_type, firmware_version,
    node_guid, ports: [{port, state, physical_state, rate_gbps, link_layer}]}
    in natural name order; failed lists the devices named by ``ibpanic:``
    lines (in text or in stderr; ibstat prints them to stderr, some captures
    mix both streams). ``ibwarn:`` lines are ignored.

    expected_devices: the RDMA devices sysfs lists; output without any device
    (and without an ibpanic line) is an error when there are some.
    """
    text = _as_text(text, "ibstat output")
    stderr = _as_text(stderr or "", "ibstat stderr")
    hcas = []
    names = set()
    state = {"ca": None, "port": None}

    def finish_port():
        port = state["port"]
        if port is None:
            return
        state["port"] = None
        ca = state["ca"]
        fields = port["fields"]
        for key in _PORT_REQUIRED:
            if not fields.get(key, ("", 0))[0]:
                raise IbFactsError("ibstat: CA '%s' port %d lacks %s (truncated output?)"
                                   % (ca["name"], port["number"], key))
        rate, rate_line = fields["Rate"]
        if not _NUMBER_RE.match(rate):
            raise IbFactsError("ibstat line %d: CA '%s' port %d rate %r is not a number"
                               % (rate_line, ca["name"], port["number"], _clip(rate)))
        ca["ports"].append({
            "port": port["number"],
            "state": fields["State"][0],
            "physical_state": fields["Physical state"][0],
            "rate_gbps": _number(rate, "ibstat line %d: CA '%s' port %d rate" % (rate_line, ca["name"], port["number"])),
            "link_layer": fields["Link layer"][0],
        })

    def finish_ca():
        finish_port()
        ca = state["ca"]
        if ca is None:
            return
        state["ca"] = None
        count, count_line = ca["fields"].get("Number of ports", ("", 0))
        if not count:
            raise IbFactsError("ibstat: CA '%s' lacks Number of ports (truncated output?)" % ca["name"])
        if not _DIGITS_RE.match(count):
            raise IbFactsError("ibstat line %d: CA '%s' Number of ports %r is not a number"
                               % (count_line, ca["name"], _clip(count)))
        announced = small_int(count, "ibstat line %d: CA '%s' Number of ports" % (count_line, ca["name"]), IbFactsError)
        if announced > len(ca["ports"]):
            raise IbFactsError("ibstat: CA '%s' announces %s port(s) but %d were printed (truncated output?)"
                               % (ca["name"], count, len(ca["ports"])))
        if announced < len(ca["ports"]):
            raise IbFactsError("ibstat: CA '%s' announces %s port(s) but %d were printed"
                               % (ca["name"], count, len(ca["ports"])))
        fields = ca["fields"]
        hcas.append({
            "name": ca["name"],
            "ca_type": fields.get("CA type", (None, 0))[0] or None,
            "firmware_version": fields.get("Firmware version", (None, 0))[0] or None,
            "node_guid": fields.get("Node GUID", (None, 0))[0] or None,
            "ports": sorted(ca["ports"], key=lambda p: p["port"]),
        })

    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("ibwarn:") or line.startswith("ibpanic:"):
            continue
        match = _CA_RE.match(line)
        if match:
            finish_ca()
            name = match.group(1)
            if name in names:
                raise IbFactsError("ibstat line %d: CA '%s' is listed twice" % (number, name))
            names.add(name)
            state["ca"] = {"name": name, "fields": {}, "ports": [], "numbers": set()}
            continue
        match = _PORT_RE.match(line)
        if match:
            if state["ca"] is None:
                raise IbFactsError("ibstat line %d: %r comes before any \"CA '<name>'\" line" % (number, _clip(line)))
            finish_port()
            port_number = small_int(match.group(1), "ibstat line %d: port number" % number, IbFactsError)
            if port_number in state["ca"]["numbers"]:
                raise IbFactsError("ibstat line %d: CA '%s' port %d is listed twice"
                                   % (number, state["ca"]["name"], port_number))
            state["ca"]["numbers"].add(port_number)
            state["port"] = {"number": port_number, "fields": {}}
            continue
        key, sep, value = line.partition(":")
        key = key.rstrip()
        if not sep or not _FIELD_KEY_RE.match(key) or (value and not value[0].isspace()):
            raise IbFactsError("ibstat line %d: cannot parse %r" % (number, _clip(line)))
        if state["ca"] is None:
            raise IbFactsError("ibstat line %d: %r comes before any \"CA '<name>'\" line" % (number, _clip(line)))
        target = state["port"] if state["port"] is not None else state["ca"]
        target["fields"][key] = (value.strip(), number)
    finish_ca()

    panics = ibpanic_lines(text) + ibpanic_lines(stderr)
    failed = []
    for device, _line in panics:
        if device and device not in failed:
            failed.append(device)
    if not hcas and not panics and expected_devices:
        expected = sorted(expected_devices, key=natural_key)
        raise IbFactsError("ibstat printed no device, but sysfs lists %d: %s" % (len(expected), ", ".join(expected)))
    return sorted(hcas, key=lambda h: natural_key(h["name"])), failed


# --- sysfs ---------------------------------------------------------------------


def _read(path):
    """Stripped content of a sysfs file; None when it cannot be read or is empty.

    Reading some attributes fails with EINVAL (GID types in containers, empty
    GID table entries): that is a missing value, never an error.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read(4096)
    except (IOError, OSError):
        return None
    text = data.decode("utf-8", "replace").strip()
    if not text or _NOT_SYSFS_TEXT.search(text):
        return None
    return text


def _listdir(path):
    try:
        return os.listdir(path)
    except (IOError, OSError):
        return []


def _indexed(directory):
    """{int(name): content} for the readable numbered files in directory."""
    result = {}
    for name in _listdir(directory):
        if _DIGITS_RE.match(name) and len(name) <= MAX_DIGITS:
            value = _read(os.path.join(directory, name))
            if value is not None:
                result[int(name)] = value
    return result


def sysfs_state(text):
    """'4: ACTIVE' -> 'Active' (the word ibstat prints); None stays None."""
    if text is None:
        return None
    word = text.split(":", 1)[1].strip() if ":" in text else text.strip()
    return _SYSFS_STATES.get(word, word)


def sysfs_phys_state(text):
    """'5: LinkUp' -> 'LinkUp'."""
    if text is None:
        return None
    return text.split(":", 1)[1].strip() if ":" in text else text.strip()


def sysfs_rate(text):
    """'200 Gb/sec (4X HDR)' -> 200, '2.5 Gb/sec (1X SDR)' -> 2.5; None when unreadable."""
    match = _SYSFS_RATE_RE.match(text or "")
    if not match:
        return None
    try:
        return _number(match.group(1), "sysfs rate")
    except IbFactsError:
        return None


def _guid(text):
    """sysfs '0c42:a103:0065:d6b6' -> '0x0c42a1030065d6b6', as ibstat prints it."""
    if text and _GUID_RE.match(text):
        return "0x" + text.replace(":", "").lower()
    return text


def roce_v2_gid_index(gids, types):
    """First GID index whose type is RoCE v2 and whose GID is a non-zero IPv4-mapped address.

    gids and types: {index: text} (or lists, position = index) as read from
    ``gids/N`` and ``gid_attrs/types/N``; unreadable entries are missing or None.
    That is the index NCCL's own search prefers (AF_INET, RoCE v2).
    """
    if isinstance(gids, (list, tuple)):
        gids = dict(enumerate(gids))
    if isinstance(types, (list, tuple)):
        types = dict(enumerate(types))
    for index in sorted(gids):
        gid_type = types.get(index)
        if gid_type is None or gid_type.strip() != "RoCE v2":
            continue
        try:
            address = ipaddress.IPv6Address(str(gids[index]).strip())
        except (ValueError, AttributeError):
            continue
        mapped = address.ipv4_mapped
        if mapped is not None and int(mapped) != 0:
            return index
    return None


def _netdevs_of_device(root, device_dir):
    """{netdev: dev_port or None} for the network interfaces on the same PCI function."""
    found = {}
    net_dir = os.path.join(device_dir, "device", "net")
    for name in _listdir(net_dir):
        found[name] = _read(os.path.join(net_dir, name, "dev_port"))
    target = os.path.realpath(os.path.join(device_dir, "device"))
    if os.path.isdir(target):
        class_net = os.path.join(root, "class", "net")
        for name in _listdir(class_net):
            if name in found:
                continue
            link = os.path.join(class_net, name, "device")
            if os.path.exists(link) and os.path.realpath(link) == target:
                found[name] = _read(os.path.join(class_net, name, "dev_port"))
    return found


def _port_netdev(port_number, port_count, netdevs):
    candidates = []
    for name, dev_port in netdevs.items():
        if dev_port is not None and _DIGITS_RE.match(dev_port) and len(dev_port) <= MAX_DIGITS:
            if int(dev_port) + 1 == port_number:
                candidates.append(name)
        elif port_count == 1:
            candidates.append(name)
    return sorted(candidates, key=natural_key)[0] if candidates else None


def read_sysfs(root):
    """RDMA devices under ``<root>/class/infiniband``, as {name: device}.

    device: {name, ca_type, firmware_version, node_guid, node_type, ports:
    {number: {state, physical_state, rate_gbps, link_layer, gids, gid_types,
    ndevs, netdev, roce_v2_gid_index}}}. Unreadable files give None (or no
    entry in gids/gid_types/ndevs). The netdev of a port is the one of its GID
    table (``gid_attrs/ndevs``, RoCE) or else the interface on the same PCI
    function (``device/net/*`` or ``<root>/class/net/*/device``), told apart
    by ``dev_port`` on multi-port devices.
    """
    base = os.path.join(root, "class", "infiniband")
    result = {}
    for name in sorted(_listdir(base), key=natural_key):
        device_dir = os.path.join(base, name)
        ports_dir = os.path.join(device_dir, "ports")
        numbers = sorted(int(p) for p in _listdir(ports_dir) if _DIGITS_RE.match(p) and len(p) <= MAX_DIGITS)
        netdevs = _netdevs_of_device(root, device_dir)
        ports = {}
        for number in numbers:
            port_dir = os.path.join(ports_dir, str(number))
            gids = _indexed(os.path.join(port_dir, "gids"))
            gid_types = _indexed(os.path.join(port_dir, "gid_attrs", "types"))
            ndevs = _indexed(os.path.join(port_dir, "gid_attrs", "ndevs"))
            gid_index = roce_v2_gid_index(gids, gid_types)
            if gid_index is not None and gid_index in ndevs:
                netdev = ndevs[gid_index]
            elif ndevs:
                netdev = ndevs[min(ndevs)]
            else:
                netdev = _port_netdev(number, len(numbers), netdevs)
            ports[number] = {
                "state": sysfs_state(_read(os.path.join(port_dir, "state"))),
                "physical_state": sysfs_phys_state(_read(os.path.join(port_dir, "phys_state"))),
                "rate_gbps": sysfs_rate(_read(os.path.join(port_dir, "rate"))),
                "link_layer": _read(os.path.join(port_dir, "link_layer")),
                "gids": gids,
                "gid_types": gid_types,
                "ndevs": ndevs,
                "netdev": netdev,
                "roce_v2_gid_index": gid_index,
            }
        result[name] = {
            "name": name,
            "ca_type": _read(os.path.join(device_dir, "hca_type")),
            "firmware_version": _read(os.path.join(device_dir, "fw_ver")),
            "node_guid": _guid(_read(os.path.join(device_dir, "node_guid"))),
            "node_type": _read(os.path.join(device_dir, "node_type")),
            "ports": ports,
        }
    return result


def expected_ibstat_devices(sysfs):
    """The sysfs devices ibstat should list: all but iWARP RNICs (no umad device)."""
    return [name for name, device in sysfs.items() if "RNIC" not in (device.get("node_type") or "")]


def _fact_port(number, data, extra):
    port = {
        "port": number,
        "state": data.get("state"),
        "physical_state": data.get("physical_state"),
        "rate_gbps": data.get("rate_gbps"),
        "link_layer": data.get("link_layer"),
    }
    if extra.get("netdev"):
        port["netdev"] = extra["netdev"]
    if port["link_layer"] == ETHERNET:
        port["roce_v2_gid_index"] = extra.get("roce_v2_gid_index")
    return port


def merge_hcas(ibstat_hcas, sysfs):
    """ibstat's HCAs with the netdev and, for Ethernet ports, the RoCE v2 GID index from sysfs."""
    result = []
    for hca in ibstat_hcas:
        sys_ports = sysfs.get(hca["name"], {}).get("ports", {})
        ports = [_fact_port(p["port"], p, sys_ports.get(p["port"], {})) for p in hca["ports"]]
        merged = dict(hca)
        merged["ports"] = ports
        result.append(merged)
    return result


def hcas_from_sysfs(sysfs):
    """HCAs in the ibstat shape from read_sysfs() alone (ibstat missing or unusable)."""
    result = []
    for name in sorted(sysfs, key=natural_key):
        device = sysfs[name]
        result.append({
            "name": name,
            "ca_type": device.get("ca_type"),
            "firmware_version": device.get("firmware_version"),
            "node_guid": device.get("node_guid"),
            "ports": [_fact_port(n, device["ports"][n], device["ports"][n]) for n in sorted(device["ports"])],
        })
    return result


# --- port selection and NCCL environment -----------------------------------------


def select_ports(hcas, select="auto", highest_rate_only=True, exclude=()):
    """The ports NCCL should use, in natural (device, port) order.

    Only Active ports with link layer InfiniBand or Ethernet (RoCE) count.
    select: auto (the InfiniBand ports if any, else the RoCE ports), ib, roce
    or all. highest_rate_only keeps the ports at the highest rate of those
    (slower ones are management or storage links). exclude: HCA names or
    shell patterns (fnmatch) to leave out.
    Returns [{hca, port, link_layer, rate_gbps}] plus netdev when known and
    roce_v2_gid_index for Ethernet ports.
    """
    if select not in SELECT_CHOICES:
        raise IbFactsError("select must be one of %s, got %r" % (", ".join(SELECT_CHOICES), select))
    exclude = list(exclude or ())
    active = []
    for hca in hcas:
        if any(fnmatch.fnmatchcase(hca["name"], pattern) for pattern in exclude):
            continue
        for port in hca["ports"]:
            if port.get("state") != "Active" or port.get("link_layer") not in (INFINIBAND, ETHERNET):
                continue
            entry = {"hca": hca["name"], "port": port["port"], "link_layer": port["link_layer"],
                     "rate_gbps": port.get("rate_gbps")}
            for key in ("netdev", "roce_v2_gid_index"):
                if key in port:
                    entry[key] = port[key]
            active.append(entry)
    infiniband = [e for e in active if e["link_layer"] == INFINIBAND]
    roce = [e for e in active if e["link_layer"] == ETHERNET]
    chosen = {"auto": infiniband or roce, "ib": infiniband, "roce": roce, "all": active}[select]
    if highest_rate_only and chosen:
        top = max(e["rate_gbps"] or 0 for e in chosen)
        chosen = [e for e in chosen if (e["rate_gbps"] or 0) == top]
    return sorted(chosen, key=lambda e: (natural_key(e["hca"]), e["port"]))


def _excluded_ifname(name):
    return name == "lo" or name.startswith("docker")


def _parse_address(text, what):
    value = str(text)
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    value = value.split("%", 1)[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        raise IbFactsError("%s %r is not an IP address" % (what, _clip(str(text))))
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address


def _interface_addresses(interfaces):
    parsed = {}
    for name, addresses in (interfaces or {}).items():
        if isinstance(addresses, str):
            addresses = [addresses]
        items = []
        for text in addresses or []:
            value = str(text).strip().split("%", 1)[0]
            try:
                items.append(ipaddress.ip_interface(value).ip)
            except ValueError:
                raise IbFactsError("interfaces: %s address %r is not an IP address" % (name, _clip(str(text))))
        parsed[str(name)] = items
    return parsed


def socket_ifname(interfaces, address=None, cidr=None):
    """The interface for NCCL's bootstrap network, or None.

    interfaces: {ifname: ["10.0.0.5/24", ...]}. With cidr, the interface
    holding an address in that network; otherwise, with address, the
    interface holding that address. Never lo or docker*; when several
    interfaces qualify, the first in natural order.
    """
    parsed = _interface_addresses(interfaces)
    if cidr:
        try:
            network = ipaddress.ip_network(str(cidr).strip(), strict=False)
        except ValueError:
            raise IbFactsError("bootstrap_cidr %r is not a network" % _clip(str(cidr)))

        def match(ip):
            return ip.version == network.version and ip in network
    elif address:
        wanted = _parse_address(address, "bootstrap_address")

        def match(ip):
            return ip == wanted
    else:
        return None
    candidates = [name for name, ips in parsed.items() if not _excluded_ifname(name) and any(match(ip) for ip in ips)]
    return sorted(candidates, key=natural_key)[0] if candidates else None


def nccl_env(selected_ports, interfaces=None, bootstrap_address=None, bootstrap_cidr=None):
    """NCCL_* variables for the selected ports (see the module docstring for the rules)."""
    env = {}
    ports = sorted(selected_ports, key=lambda e: (natural_key(e["hca"]), e["port"]))
    if ports:
        env["NCCL_IB_HCA"] = "=" + ",".join("%s:%d" % (e["hca"], e["port"]) for e in ports)
        if all(e["link_layer"] == ETHERNET for e in ports):
            indexes = set(e.get("roce_v2_gid_index") for e in ports)
            if len(indexes) == 1 and None not in indexes:
                env["NCCL_IB_GID_INDEX"] = str(indexes.pop())
    else:
        env["NCCL_IB_DISABLE"] = "1"
    ifname = socket_ifname(interfaces or {}, bootstrap_address, bootstrap_cidr)
    if ifname:
        env["NCCL_SOCKET_IFNAME"] = "=" + ifname
    return env


# --- addresses -------------------------------------------------------------------


def parse_ip_addr(text):
    """{ifname: ["addr/prefix", ...]} from ``ip -o addr show`` output.

    ``name@parent`` is reduced to name; ``link/...`` lines (some iproute2
    versions) only register the interface.
    """
    text = _as_text(text, "ip -o addr output")
    result = {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        match = _IP_ADDR_RE.match(line)
        if not match:
            raise IbFactsError("ip -o addr line %d: cannot parse %r" % (number, _clip(line)))
        name, family, value = match.group(1), match.group(2), match.group(3)
        addresses = result.setdefault(name, [])
        if family.startswith("link/"):
            continue
        try:
            interface = ipaddress.ip_interface(str(value or ""))
        except ValueError:
            raise IbFactsError("ip -o addr line %d: %r is not an address" % (number, _clip(value or "")))
        if interface.version != (6 if family == "inet6" else 4):
            raise IbFactsError("ip -o addr line %d: %r is not an %s address" % (number, _clip(value), family))
        addresses.append(value)
    return result


def ssh_server_address(ssh_connection):
    """The node's address from SSH_CONNECTION ('client_ip client_port server_ip server_port'), or None."""
    parts = (ssh_connection or "").split()
    if len(parts) != 4:
        return None
    try:
        return str(_parse_address(parts[2], "SSH_CONNECTION server address"))
    except IbFactsError:
        return None


def build_facts(hcas, failed=(), source="ibstat", select="auto", highest_rate_only=True, exclude_hcas=(),
                interfaces=None, bootstrap_address=None, bootstrap_cidr=None):
    """The gpuops_ib fact: hcas, selected ports, failed HCAs, source and nccl_env."""
    selected = select_ports(hcas, select, highest_rate_only, exclude_hcas)
    return {
        "source": source,
        "hcas": hcas,
        "failed_hcas": list(failed),
        "selected": ["%s:%d" % (e["hca"], e["port"]) for e in selected],
        "nccl_env": nccl_env(selected, interfaces, bootstrap_address, bootstrap_cidr),
    }


# No error of Python's own leaves a parser: anything no rule foresaw becomes IbFactsError.
parse_ibstat = guarded(IbFactsError, 'ibstat')(parse_ibstat)
parse_ip_addr = guarded(IbFactsError, 'ip addr')(parse_ip_addr)
