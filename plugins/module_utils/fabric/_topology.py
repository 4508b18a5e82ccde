# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Topology-aware placement: Slurm's topology.conf from the InfiniBand fabric, the inventory or NVLink domains.

Pure functions behind the ``topology_plan`` filter (``plugins/filter/topology.py``):

* ``parse_ibnetdiscover``: the switches, channel adapters (CAs) and links of
  ``ibnetdiscover`` output in its default text format;
* ``fabric_tree``: the switch tree that fabric implies (leaf switches with
  their hosts, upper levels by distance from the leaves, as in 2- and 3-level
  fat trees), switch names made safe for Slurm (``switch_names``);
* ``tree_from_inventory``: the same tree from an inventory map (node -> leaf
  switch, switch -> parent) for fabrics that cannot be discovered;
* ``topology_tree_lines``: ``topology/tree`` lines for the Slurm nodes;
* ``nvlink_domains``: hosts grouped by their GPUs' NVLink fabric (ClusterUUID
  and CliqueId, from gpu_facts); ``topology_block_lines``: ``topology/block``
  lines from those domains or from blocks given in the inventory;
* ``choose_topology_plugin``: which plugin a Slurm release and the known
  topology allow, and why; ``topology_plan``: all of it in one call.

Slurm's rules followed (src/plugins/topology/tree/switch_record.c and
src/plugins/topology/block/block_record.c, 22.05 to 26.05):

* A switch name is defined once (slurmctld stops otherwise); names are read as
  hostlists, so they carry no comma, bracket or space. A leaf switch's
  children switches are ignored; a job spans only switches below a common
  switch ("no switch can reach all nodes through its descendants").
* topology/block exists from 23.11. 23.11 wants every block to hold the same
  number of nodes and has no BlockSizes (it reads BlockLevels); 24.05 and 24.11
  read BlockSizes and want every block to hold at least the base block size
  (the first BlockSizes value, else the first block's size); from 25.05 a
  block may hold fewer. BlockSizes: each value a power-of-two multiple (at
  most 2^15) of the first. Slurm aggregates blocks in the order they are
  written: blocks are written in the order of their first node name.
* The topology plugin without topology is topology/none up to 23.02,
  topology/default in 23.11 to 24.11 and topology/flat from 25.05.

Node names: the caller gives each Slurm node's inventory host and Slurm name
(computed with the collection's one rule, ``_slurm_conf.node_name``). A host
name read from the fabric (a CA's node description such as ``node01 HCA-1``
or ``node01 mlx5_0``) matches an inventory host by that name, by its Slurm
name, or by the first label of either (``node_name`` again).

Every function raises TopologyError, a ValueError whose message is one line
and names what is wrong (for ibnetdiscover output: the line).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from collections import deque

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import natural_key
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_conf import node_name, version_tuple
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, clip, guarded, shown, small_int


class TopologyError(ValueError):
    """Input that gives no usable topology; the message is one line and names what is wrong."""


# Control characters other than TAB, LF and CR, and DEL: binary output, not a topology file.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Switch  36 "S-0008f10500200b50"  # "Voltaire 4036 - 36 QDR ports switch" enhanced port 0 lid 9 lmc 0
# Ca      1 "H-003048c707b60000"   # "MT25408 ConnectX Mellanox Technologies"
_NODE_RE = re.compile(r'(Switch|Ca|Rt)\s+([0-9]{1,4})\s+"([SHR])-([0-9a-fA-F]{16})"\s*(?:#\s*"(.*)"([^"]*))?\Z')
# [4]   "H-003048c749cd0000"[1](3048c749cd0001)   # "MT25408 ConnectX Mellanox Technologies" lid 72 4xDDR
# [1](3048c707b60001)   "S-0008f10500200b50"[32]   # lid 93 lmc 0 "Voltaire 4036 - 36 QDR ports switch" lid 9 4xDDR
_PORT_RE = re.compile(r'\[([0-9]{1,4})\](?:\[ext [0-9]{1,4}\])?(?:\((?:0x)?[0-9a-fA-F]{1,16}\))?\s*'
                      r'"([SHR])-([0-9a-fA-F]{16})"\[([0-9]{1,4})\](?:\[ext [0-9]{1,4}\])?'
                      r'(?:\((?:0x)?[0-9a-fA-F]{1,16}\))?\s*(?:#(.*))?\Z')
_HEADER_RE = re.compile(r"(vendid|devid|sysimgguid|switchguid|caguid|routerguid)=(\S{1,80})\Z")
# What infiniband-diags and libibmad print to stderr (captures often mix both streams):
# "ibwarn: [6931] ...", "src/query_smp.c:195; umad (DR path ...) bad status 110; Connection timed out".
_WARNING_RE = re.compile(r"(?:ibwarn|iberror|ibpanic|ibdebug):|[A-Za-z0-9_./-]{1,200}\.c:[0-9]{1,9};")
# ibnetdiscover -g groups nodes under these lines.
_GROUP_RE = re.compile(r"Non-Chassis Nodes\Z|Chassis [0-9]{1,9}(?: |\Z)")
_LID_RE = re.compile(r"\blid ([0-9]{1,5})\b")
_RATE_RE = re.compile(r"\b([0-9]{1,2}x[A-Z]{2,4})\Z")
_TYPES = {"Switch": ("S", "switch"), "Ca": ("H", "ca"), "Rt": ("R", "router")}
_LETTER_TYPES = {"S": "switch", "H": "ca", "R": "router"}
# The most ports an InfiniBand node has (the port number is 8 bits; 255 is reserved).
MAX_PORTS = 254

# A CA's node description: "<host> HCA-1" (OFED), "<host> mlx5_0" (rdma-ndd's default "%h %d"),
# optionally followed by a parenthesised remark.
_DEVICE_RE = re.compile(r"(?:HCA-[0-9]{1,4}|[A-Za-z][A-Za-z0-9]{0,20}(?:_[A-Za-z0-9]{1,20}){0,2}_[0-9]{1,4})\Z")
_HOST_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,252}\Z")
_AGGREGATION_NODE = "aggregation node"
# Switch descriptions: "MF0;<name>:<model>/<unit>" (managed Mellanox/NVIDIA switches).
_MF0_RE = re.compile(r"MF0;([^:;\s]{1,64}):")
# Names Slurm reads as one hostlist item without quoting (as _slurm_model's node names).
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_SHOWN_LIMIT = 6

FLAT_PLUGINS = (((25, 5), "topology/flat"), ((23, 11), "topology/default"), ((0, 0), "topology/none"))
BLOCK_SINCE = (23, 11)
BLOCK_SIZES_SINCE = (24, 5)
SMALL_BLOCKS_SINCE = (25, 5)
# BlockSizes without a value: Slurm's default levels 0 to 4 (1, 2, 4, 8 and 16 base blocks).
DEFAULT_BLOCK_LEVELS = 5
# Slurm stops resolving switch levels past 20 ("Switch configuration is not a tree").
MAX_TREE_DEPTH = 20
MAX_BLOCK_NODES = 1000000
MAX_BLOCK_LEVEL = 15
PLAN_KEYS = ("ibnetdiscover", "ca_hosts", "node_switches", "switch_parents", "blocks", "gpus", "block_sizes", "plugin")


def _listed(names, limit=_SHOWN_LIMIT):
    """'a, b, c' for at most limit names, then 'and N more'."""
    names = list(names)
    text = ", ".join(names[:limit])
    if len(names) > limit:
        text += " and %d more" % (len(names) - limit)
    return text


def _sorted(names):
    return sorted(names, key=natural_key)


def _hostlist(names):
    """Slurm hostlist of names (the collection's compress); names it cannot carry are refused before this."""
    try:
        return compress(_sorted(names))
    except HostlistError as exc:
        raise TopologyError("cannot write a hostlist: %s" % exc)


# --- ibnetdiscover ---------------------------------------------------------------


def _text(data):
    """data as text; TopologyError for what is not text or holds control characters (binary output)."""
    if not isinstance(data, (str, bytes, bytearray)):
        raise TopologyError("ibnetdiscover output must be text, got %s" % type(data).__name__)
    text = as_text(data, "ibnetdiscover output", TopologyError)
    match = _NOT_TEXT.search(text)
    if match:
        line = text.count("\n", 0, match.start()) + 1
        raise TopologyError("ibnetdiscover line %d: control character 0x%02x: this is not ibnetdiscover's text output"
                            % (line, ord(match.group(0))))
    return text


def ca_host(description):
    """The host a CA's node description names ('node01 HCA-1', 'node01 mlx5_0' -> 'node01'), or None.

    A description of one word that is a host name is taken as the host; vendor defaults such as
    'MT25408 ConnectX Mellanox Technologies' (set before rdma-ndd or the driver knows the host) name none.
    """
    words = (description or "").split()
    if len(words) > 2 and words[2].startswith("("):
        words = words[:2]
    if len(words) == 2 and _DEVICE_RE.match(words[1]) and _HOST_RE.match(words[0]):
        return words[0]
    if len(words) == 1 and _HOST_RE.match(words[0]) and not _DEVICE_RE.match(words[0]):
        return words[0]
    return None


def is_aggregation_node(description):
    """A SHARP aggregation node inside a Quantum switch ('Mellanox Technologies Aggregation Node'): not a host."""
    return _AGGREGATION_NODE in (description or "").lower()


def _quoted(line):
    """A line as a message quotes it: white space runs as one space, cut after 80 characters."""
    return shown(clip(line, 80), 100)


def _number(text, what, number):
    return small_int(text, "ibnetdiscover line %d: %s" % (number, what), TopologyError)


def _node(match, number):
    """A node from its Switch/Ca/Rt line."""
    kind, count, letter, guid, description, rest = match.groups()
    if _TYPES[kind][0] != letter:
        raise TopologyError("ibnetdiscover line %d: a %s line names %s-%s" % (number, kind, letter, guid))
    nports = _number(count, "port count", number)
    if not 1 <= nports <= MAX_PORTS:
        raise TopologyError("ibnetdiscover line %d: %s %s-%s has %d ports; a node has 1 to %d"
                            % (number, kind, letter, guid, nports, MAX_PORTS))
    lid = _LID_RE.search(rest or "")
    return {
        "id": "%s-%s" % (letter, guid.lower()),
        "type": _TYPES[kind][1],
        "guid": "0x" + guid.lower(),
        "nports": nports,
        "description": description if description is not None else "",
        "lid": int(lid.group(1)) if lid else None,
        "ports": {},
    }


def _peer_comment(comment):
    """(own lid, peer description, peer lid, rate), each None when absent, from a port line's comment.

    A switch's port: '"<peer>" lid 16 4xQDR'; a CA's: 'lid 93 lmc 0 "<peer>" lid 9 4xDDR' (its own lid first).
    """
    comment = (comment or "").strip()
    first, last = comment.find('"'), comment.rfind('"')
    description = comment[first + 1:last] if 0 <= first < last else None
    own = _LID_RE.search(comment[:first]) if first > 0 else None
    tail = comment[last + 1:] if last >= 0 else comment
    lid = _LID_RE.search(tail)
    rate = _RATE_RE.search(tail.strip())
    return (int(own.group(1)) if own else None, description, int(lid.group(1)) if lid else None,
            rate.group(1) if rate else None)


def _port(match, node, number):
    """Add one port line's link to node."""
    port_text, letter, guid, peer_port_text, comment = match.groups()
    port = _number(port_text, "port number", number)
    peer_port = _number(peer_port_text, "peer port number", number)
    if not 1 <= port <= node["nports"]:
        raise TopologyError("ibnetdiscover line %d: port %d of %s, which has %d ports"
                            % (number, port, node["id"], node["nports"]))
    if not 1 <= peer_port <= MAX_PORTS:
        raise TopologyError("ibnetdiscover line %d: peer port %d; a port is numbered 1 to %d" % (number, peer_port, MAX_PORTS))
    if port in node["ports"]:
        raise TopologyError("ibnetdiscover line %d: port %d of %s is listed twice" % (number, port, node["id"]))
    own_lid, description, lid, rate = _peer_comment(comment)
    if node["lid"] is None and own_lid is not None:
        node["lid"] = own_lid
    node["ports"][port] = {"peer": "%s-%s" % (letter, guid.lower()), "peer_port": peer_port,
                           "peer_type": _LETTER_TYPES[letter], "peer_description": description,
                           "peer_lid": lid, "rate": rate}


def _read_nodes(text):
    """(nodes by id, warnings) of ibnetdiscover output."""
    nodes, first_line, warnings = {}, {}, []
    current = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#") or _GROUP_RE.match(line):
            continue
        if _WARNING_RE.match(line):
            warnings.append(clip(line, 200))
            continue
        if _HEADER_RE.match(line):
            current = None
            continue
        match = _NODE_RE.match(line)
        if match:
            current = _node(match, number)
            if current["id"] in nodes:
                raise TopologyError("ibnetdiscover line %d: %s is listed twice (first on line %d)"
                                    % (number, current["id"], first_line[current["id"]]))
            nodes[current["id"]], first_line[current["id"]] = current, number
            continue
        match = _PORT_RE.match(line)
        if match and current is None:
            raise TopologyError("ibnetdiscover line %d: a port line outside a Switch or Ca block: %s"
                                % (number, _quoted(line)))
        if match:
            _port(match, current, number)
            continue
        raise TopologyError("ibnetdiscover line %d: cannot read %s (not a Switch, Ca or port line of ibnetdiscover's "
                            "default output)" % (number, _quoted(line)))
    return nodes, warnings


def _links(nodes):
    """Every link once, from either end: [{a, a_port, b, b_port}] sorted."""
    seen = set()
    for node in nodes.values():
        for port, link in node["ports"].items():
            ends = sorted([(node["id"], port), (link["peer"], link["peer_port"])])
            seen.add((ends[0][0], ends[0][1], ends[1][0], ends[1][1]))
    return [{"a": a, "a_port": pa, "b": b, "b_port": pb} for a, pa, b, pb in sorted(seen)]


def _undescribed(nodes):
    """Nodes that ports link to but the output does not describe: {id: {description, referenced_by}}."""
    missing = {}
    for node in nodes.values():
        for port, link in sorted(node["ports"].items()):
            if link["peer"] in nodes:
                continue
            entry = missing.setdefault(link["peer"], {"type": link["peer_type"], "description": None,
                                                      "referenced_by": []})
            entry["description"] = entry["description"] or link["peer_description"]
            entry["referenced_by"].append("%s[%d]" % (node["id"], port))
    return missing


def parse_ibnetdiscover(text):
    """Switches, CAs and links of ``ibnetdiscover`` output (the default text format).

    Returns {switches, cas, routers, links, undescribed, warnings}: switches, cas and routers map a node id
    as ibnetdiscover prints it ('S-0008f10500200b50') to {id, type, guid, nports, description, lid (a
    switch's; a CA's first listed port's), ports: {port: {peer, peer_port, peer_type, peer_description,
    peer_lid, rate}}}; each CA also has host (the
    host its description names, or None) and aggregation_node. links lists each link once; undescribed
    names the nodes that ports link to but the output does not describe (discovery stopped short, or a
    switch's block was lost); warnings holds the ibwarn and libibmad lines mixed into the output.
    """
    nodes, warnings = _read_nodes(_text(text))
    if not nodes:
        raise TopologyError("ibnetdiscover output has no Switch or Ca line (empty, or not ibnetdiscover's output)")
    by_type = {"switch": {}, "ca": {}, "router": {}}
    for node_id, node in nodes.items():
        if node["type"] == "ca":
            node["host"] = ca_host(node["description"])
            node["aggregation_node"] = is_aggregation_node(node["description"])
        by_type[node["type"]][node_id] = node
    return {"switches": by_type["switch"], "cas": by_type["ca"], "routers": by_type["router"],
            "links": _links(nodes), "undescribed": _undescribed(nodes), "warnings": warnings}


# --- the switch tree ---------------------------------------------------------------


def _short_name(description):
    """A switch's own name in its description ('MF0;leaf01:MQM8700/U1' -> 'leaf01', 'Voltaire 4036 # sw7' ->
    'sw7', a description of one word), or None (vendor defaults such as 'Quantum Mellanox Technologies')."""
    description = (description or "").strip()
    match = _MF0_RE.match(description)
    if match:
        candidate = match.group(1)
    elif " # " in description:
        candidate = description.rsplit(" # ", 1)[1].strip()
    elif description and len(description.split()) == 1:
        candidate = description
    else:
        candidate = None
    return candidate if candidate and _SAFE_NAME.match(candidate) else None


def switch_names(switches):
    """{switch id: Slurm-safe name}: the name in its description when that is unique, else the id as
    ibnetdiscover prints it ('S-0008f10500200b50'). Deterministic; no two switches share a name."""
    candidates = dict((switch_id, _short_name(switch.get("description"))) for switch_id, switch in switches.items())
    counts = {}
    for candidate in candidates.values():
        counts[candidate] = counts.get(candidate, 0) + 1
    names = {}
    for switch_id, candidate in candidates.items():
        unique = candidate and counts[candidate] == 1 and candidate not in switches
        names[switch_id] = candidate if unique else switch_id
    return names


def _guid_key(text, what):
    """A GUID given as 'H-0002c90300080d28', '0x2c90300080d28' or '0002c90300080d28', as an int."""
    value = str(text).strip()
    for prefix in ("H-", "h-", "0x", "0X"):
        if value.startswith(prefix):
            value = value[len(prefix):]
            break
    if not re.match(r"[0-9a-fA-F]{1,16}\Z", value):
        raise TopologyError("%s: %s is not a CA GUID (give it as ibnetdiscover prints it, e.g. H-0002c90300080d28)"
                            % (what, shown(text)))
    return int(value, 16)


def _ca_host_overrides(ca_hosts):
    """{GUID int: host} of ca_hosts ({GUID: host} for CAs whose description names no host)."""
    if ca_hosts is None:
        return {}
    if not hasattr(ca_hosts, "items"):
        raise TopologyError("ca_hosts must be a mapping of CA GUID to host name, got %s" % type(ca_hosts).__name__)
    overrides = {}
    for guid, host in ca_hosts.items():
        if not isinstance(host, str) or not _HOST_RE.match(host):
            raise TopologyError("ca_hosts[%s]: %s is not a host name" % (shown(guid), shown(host)))
        overrides[_guid_key(guid, "ca_hosts")] = host
    return overrides


def _ca_info(parsed, overrides):
    """{CA id: (host or None, description, aggregation node)} for every CA a switch or the output names."""
    info = {}
    for switch in parsed["switches"].values():
        for link in switch["ports"].values():
            if link["peer_type"] == "ca":
                info[link["peer"]] = link["peer_description"] or ""
    for ca_id, ca in parsed["cas"].items():
        info[ca_id] = ca["description"]
    result = {}
    for ca_id, description in info.items():
        host = overrides.get(int(ca_id[2:], 16)) or ca_host(description)
        result[ca_id] = (host, description, is_aggregation_node(description))
    return result


def _switch_neighbours(switches):
    """{switch id: described switches it links to, itself left out}."""
    return dict((switch_id, set(link["peer"] for link in switch["ports"].values()
                                if link["peer_type"] == "switch" and link["peer"] in switches and link["peer"] != switch_id))
                for switch_id, switch in switches.items())


def _levels(neighbours, leaves):
    """{switch id: distance from the nearest leaf switch} (breadth first); switches no leaf reaches are left out."""
    levels = dict((leaf, 0) for leaf in leaves)
    queue = deque(_sorted(leaves))
    while queue:
        switch_id = queue.popleft()
        for peer in _sorted(neighbours[switch_id]):
            if peer not in levels:
                levels[peer] = levels[switch_id] + 1
                queue.append(peer)
    return levels


def _leaf_hosts(parsed, cas):
    """({leaf id: {host: [CA ids]}}, [unnamed (CA id, description, leaf id)], aggregation node count)."""
    leaves, unnamed, aggregation = {}, [], set()
    for switch_id, switch in parsed["switches"].items():
        for link in switch["ports"].values():
            if link["peer_type"] != "ca":
                continue
            host, description, is_an = cas[link["peer"]]
            if is_an:
                aggregation.add(link["peer"])
                continue
            hosts = leaves.setdefault(switch_id, {})
            if host is None:
                unnamed.append((link["peer"], description, switch_id))
            else:
                hosts.setdefault(host, []).append(link["peer"])
    return leaves, unnamed, len(aggregation)


def _incomplete(parsed, cas, placed):
    """{host: reason} for hosts on no leaf whose CA links to a switch the output does not describe."""
    reasons = {}
    for ca_id, ca in sorted(parsed["cas"].items()):
        host = cas[ca_id][0]
        if host is None or host in placed or cas[ca_id][2]:
            continue
        for link in ca["ports"].values():
            missing = parsed["undescribed"].get(link["peer"])
            if missing and link["peer_type"] == "switch":
                reasons.setdefault(host, "discovery incomplete: its HCA %s links to switch %s (%s), which the "
                                   "ibnetdiscover output does not describe" % (ca_id, link["peer"],
                                                                               shown(missing["description"] or "")))
    return reasons


def _fabric_notes(parsed, unnamed, aggregation, multi_homed, unleveled, names):
    notes = []
    if parsed["warnings"]:
        notes.append("ibnetdiscover printed %d warning(s), e.g. %s" % (len(parsed["warnings"]),
                                                                       shown(parsed["warnings"][0])))
    missing = [node_id for node_id, entry in parsed["undescribed"].items() if entry["type"] == "switch"]
    if missing:
        notes.append("discovery incomplete: %d switch(es) are linked to but not described: %s"
                     % (len(missing), _listed("%s (%s)" % (m, shown(parsed["undescribed"][m]["description"] or ""))
                                              for m in _sorted(missing))))
    if unnamed:
        cas = sorted(set(ca for ca, _description, _switch in unnamed))
        notes.append("%d HCA(s) have no host name: their node description (e.g. %s) names none; map their GUIDs to "
                     "hosts with ca_hosts: %s" % (len(cas), shown(sorted(unnamed)[0][1]), _listed(cas)))
    if aggregation:
        notes.append("%d SHARP aggregation node(s) inside switches are not hosts and were left out" % aggregation)
    if multi_homed:
        notes.append("%d host(s) have HCAs on several leaf switches and are listed under each (Slurm warns "
                     "'Multiple leaf switches contain nodes'): %s" % (len(multi_homed), _listed(_sorted(multi_homed))))
    if unleveled:
        notes.append("%d switch(es) link to no leaf switch and were left out: %s"
                     % (len(unleveled), _listed(names[s] for s in _sorted(unleveled))))
    return notes


def _multi_homed(leaf_hosts):
    """Hosts with HCAs on more than one leaf switch (rail-optimised fabrics)."""
    counts = {}
    for hosts in leaf_hosts.values():
        for host in hosts:
            counts[host] = counts.get(host, 0) + 1
    return [host for host, count in counts.items() if count > 1]


def fabric_tree(parsed, ca_hosts=None):
    """The switch tree of a parsed fabric (parse_ibnetdiscover's result).

    Leaf switches are those linked to a host's HCA (SHARP aggregation nodes are not hosts); the other
    switches take their level from their distance to the nearest leaf (2- and 3-level fat trees: spines
    at 1, cores at 2), and each lists as children its neighbours one level down. ca_hosts ({CA GUID:
    host}) names the hosts of HCAs whose description names none.

    Returns {source, leaves: {name: [hosts]}, switches: {name: [child names]}, levels: {name: level},
    incomplete: {host: why it is on no leaf}, notes}.
    """
    cas = _ca_info(parsed, _ca_host_overrides(ca_hosts))
    leaf_hosts, unnamed, aggregation = _leaf_hosts(parsed, cas)
    neighbours = _switch_neighbours(parsed["switches"])
    levels = _levels(neighbours, set(leaf_hosts))
    names = switch_names(parsed["switches"])
    tree = {"source": "ibnetdiscover", "leaves": {}, "switches": {}, "levels": {}}
    for switch_id, level in levels.items():
        tree["levels"][names[switch_id]] = level
        if level == 0:
            tree["leaves"][names[switch_id]] = _sorted(leaf_hosts[switch_id])
        else:
            tree["switches"][names[switch_id]] = _sorted(names[peer] for peer in neighbours[switch_id]
                                                         if levels.get(peer) == level - 1)
    placed = set(host for hosts in leaf_hosts.values() for host in hosts)
    unleveled = [switch_id for switch_id in parsed["switches"] if switch_id not in levels]
    tree["incomplete"] = _incomplete(parsed, cas, placed)
    tree["notes"] = _fabric_notes(parsed, unnamed, aggregation, _multi_homed(leaf_hosts), unleveled, names)
    return tree


def _slurm_name(value, what):
    """value when it is a switch or block name Slurm reads as one hostlist item; TopologyError otherwise."""
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        raise TopologyError("%s: %s is not a name Slurm reads as one hostlist item (letters, digits, '_' and '-', "
                            "up to 64, starting with a letter or digit)" % (what, shown(value)))
    return value


def _mapping(value, what):
    if value is None:
        return {}
    if not hasattr(value, "items"):
        raise TopologyError("%s must be a mapping, got %s" % (what, type(value).__name__))
    return value


def _inventory_levels(leaves, parents):
    """{switch: level}: leaves 0, a parent one above its highest child; TopologyError for a loop."""
    children = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    levels = dict((leaf, 0) for leaf in leaves)

    def level_of(switch, path):
        if switch in levels:
            return levels[switch]
        if len(path) > MAX_TREE_DEPTH:
            raise TopologyError("switch_parents: the tree above %s is deeper than Slurm's %d levels"
                                % (path[0], MAX_TREE_DEPTH))
        if switch in path:
            raise TopologyError("switch_parents: switch %s is its own ancestor (%s)"
                                % (switch, " -> ".join(path[path.index(switch):] + [switch])))
        levels[switch] = 1 + max(level_of(child, path + [switch]) for child in children[switch])
        return levels[switch]

    for switch in _sorted(children):
        level_of(switch, [])
    return levels, children


def tree_from_inventory(nodes_to_switch, parents=None):
    """The switch tree from the inventory: nodes_to_switch {host: leaf switch or rack name}, parents {switch:
    parent switch}, for fabrics that cannot be discovered (Ethernet, RoCE, clouds). Same shape as fabric_tree."""
    leaves = {}
    for host, switch in _mapping(nodes_to_switch, "node_switches").items():
        if not isinstance(host, str) or not _HOST_RE.match(host):
            raise TopologyError("node_switches: %s is not a host name" % shown(host))
        leaves.setdefault(_slurm_name(switch, "node_switches[%s]" % shown(host)), []).append(host)
    parents = dict((_slurm_name(child, "switch_parents key"), _slurm_name(parent, "switch_parents[%s]" % shown(child)))
                   for child, parent in _mapping(parents, "switch_parents").items())
    for child, parent in sorted(parents.items()):
        if parent in leaves:
            raise TopologyError("switch_parents[%s]: %s has nodes (node_switches) and so is a leaf switch; Slurm "
                                "ignores the children of a leaf switch" % (child, parent))
        if child not in leaves and child not in parents.values():
            raise TopologyError("switch_parents: %s is neither a leaf switch of node_switches nor the parent of a "
                                "switch" % child)
    levels, children = _inventory_levels(leaves, parents)
    return {"source": "inventory", "leaves": dict((name, _sorted(hosts)) for name, hosts in leaves.items()),
            "switches": dict((name, _sorted(kids)) for name, kids in children.items()), "levels": levels,
            "incomplete": {}, "notes": []}


# --- Slurm nodes ---------------------------------------------------------------------


def _host_index(slurm_nodes):
    """Lookup tables from the Slurm nodes ({inventory host: Slurm name}): exact, by Slurm name, by first label."""
    slurm_nodes = _mapping(slurm_nodes, "slurm_nodes")
    index = {"nodes": {}, "exact": {}, "slurm": {}, "short": {}}
    for host, name in slurm_nodes.items():
        if not isinstance(host, str) or not isinstance(name, str) or not _HOST_RE.match(name):
            raise TopologyError("slurm_nodes[%s]: %s is not a Slurm node name" % (shown(host), shown(name)))
        index["nodes"][host] = name
        index["exact"][host] = host
        index["slurm"][name] = host
        for short in set([node_name(host), node_name(name)]):
            index["short"][short] = host if index["short"].get(short, host) == host else None
    return index


def _match(name, index):
    """The inventory host that a host name read from the fabric or the inventory stands for, or None."""
    for table, key in (("exact", name), ("slurm", name), ("short", node_name(name))):
        host = index[table].get(key)
        if host is not None:
            return host
    return None


def _missing(index, placed, reasons, default):
    """[{node, host, reason}] for the Slurm nodes that are not placed, in node name order."""
    missing = []
    for host, name in index["nodes"].items():
        if host not in placed:
            missing.append({"node": name, "host": host, "reason": reasons.get(host, default)})
    return sorted(missing, key=lambda entry: natural_key(entry["node"]))


def _kept_switches(tree, leaf_nodes):
    """{upper switch: kept children}, keeping only switches with Slurm nodes below them."""
    kept = dict((leaf, True) for leaf, nodes in leaf_nodes.items() if nodes)
    result = {}
    for name in sorted(tree["switches"], key=lambda n: (tree["levels"][n], natural_key(n))):
        children = [child for child in tree["switches"][name] if child in kept]
        if children:
            kept[name] = True
            result[name] = children
    return result


def _reach(leaf_nodes, uppers):
    """{switch: Slurm nodes below it}."""
    reach = dict((leaf, set(nodes)) for leaf, nodes in leaf_nodes.items())
    for name, children in uppers.items():  # in level order (_kept_switches)
        reach[name] = set().union(*[reach[child] for child in children])
    return reach


def _root_note(leaf_nodes, uppers):
    """A note when no switch reaches every placed node (Slurm: jobs then span only one part)."""
    reach = _reach(leaf_nodes, uppers)
    everyone = set().union(*reach.values()) if reach else set()
    if not everyone or any(nodes == everyone for nodes in reach.values()):
        return []
    children = set(child for kids in uppers.values() for child in kids)
    tops = _sorted(name for name in reach if name not in children)
    return ["no switch reaches every node through the switches below it (top switches: %s): Slurm places a job "
            "below one of them only and warns 'no switch can reach all nodes through its descendants'; the fabric "
            "has no common upper switch for them (give the tree with node_switches and switch_parents to add one)"
            % _listed(tops)]


def _tree_placement(tree, index):
    """({leaf: Slurm names}, {inventory host: [leaves]}, [fabric hosts that are no Slurm node])."""
    leaf_nodes, placed, ignored = {}, {}, []
    for leaf in _sorted(tree["leaves"]):
        names = []
        for fabric_host in tree["leaves"][leaf]:
            host = _match(fabric_host, index)
            if host is None:
                ignored.append(fabric_host)
                continue
            placed.setdefault(host, []).append(leaf)
            if index["nodes"][host] not in names:
                names.append(index["nodes"][host])
        leaf_nodes[leaf] = names
    return leaf_nodes, placed, ignored


def _no_lines(ignored):
    """The error when no leaf switch holds a Slurm node."""
    if not ignored:
        return TopologyError("no leaf switch holds a named host")
    return TopologyError("no leaf switch holds a Slurm node: none of the %d host(s) on the leaves (%s) is a Slurm node "
                         "by inventory name, Slurm name or first label" % (len(set(ignored)), _listed(_sorted(set(ignored)))))


def _missing_reasons(tree, index):
    """({inventory host: why it is on no leaf}, the reason for the others)."""
    reasons = {}
    for fabric_host, reason in tree.get("incomplete", {}).items():
        host = _match(fabric_host, index)
        if host is not None:
            reasons[host] = reason
    if tree["source"] == "ibnetdiscover":
        return reasons, ("not on the fabric: no HCA in the ibnetdiscover output names this host (its node "
                         "description, or ca_hosts)")
    return reasons, "not in node_switches (no leaf switch or rack given for it)"


def _tree_notes(tree, leaf_nodes, ignored, uppers):
    notes = list(tree.get("notes", []))
    if ignored:
        notes.append("%d host(s) of the tree are no Slurm node and were left out: %s"
                     % (len(set(ignored)), _hostlist(set(ignored))))
    dropped = [leaf for leaf, nodes in leaf_nodes.items() if not nodes]
    if dropped:
        notes.append("%d leaf switch(es) have no Slurm node and were left out: %s" % (len(dropped), _listed(dropped)))
    return notes + _root_note(dict((leaf, nodes) for leaf, nodes in leaf_nodes.items() if nodes), uppers)


def topology_tree_lines(tree, slurm_nodes):
    """topology.conf lines for topology/tree: {lines, missing, notes}.

    slurm_nodes: {inventory host: Slurm node name} of every Slurm node (the caller names them with the
    collection's one rule). Leaves list their Slurm nodes (``SwitchName=x Nodes=<hostlist>``), upper switches
    their children (``SwitchName=x Switches=<hostlist>``); switches with no Slurm node below are left out.
    missing: each Slurm node on no leaf, with why; hosts of the tree that are no Slurm node are only noted.
    TopologyError when no leaf switch holds a Slurm node.
    """
    index = _host_index(slurm_nodes)
    leaf_nodes, placed, ignored = _tree_placement(tree, index)
    uppers = _kept_switches(tree, leaf_nodes)
    lines = ["SwitchName=%s Nodes=%s" % (leaf, _hostlist(nodes)) for leaf, nodes in leaf_nodes.items() if nodes]
    if not lines:
        raise _no_lines(ignored)
    lines += ["SwitchName=%s Switches=%s" % (name, _hostlist(children)) for name, children in uppers.items()]
    reasons, default = _missing_reasons(tree, index)
    return {"lines": lines, "missing": _missing(index, placed, reasons, default),
            "notes": _tree_notes(tree, leaf_nodes, ignored, uppers)}


# --- NVLink domains and topology/block -----------------------------------------------


def _gpu_domain(index, gpu):
    """((ClusterUUID, CliqueId), None), or (None, why this GPU is in no domain), or (None, None): no fabric."""
    fabric = gpu.get("fabric") if hasattr(gpu, "get") else None
    if not fabric or not hasattr(fabric, "get"):
        return None, None
    state, status = fabric.get("state"), fabric.get("status")
    if str(state).lower() != "completed" or str(status).lower() != "success":
        return None, ("GPU %d: NVLink fabric state %s, status %s (not registered in the NVLink domain yet)"
                      % (index, _na(state), _na(status)))
    uuid, clique = fabric.get("cluster_uuid"), fabric.get("clique_id")
    if not uuid or clique in (None, ""):
        return None, "GPU %d: NVLink fabric Completed but no ClusterUUID or CliqueId" % index
    return (str(uuid), str(clique)), None


def _na(value):
    """A fabric value as a message shows it: quoted, or N/A."""
    return "N/A" if value is None else shown(value)


def _host_domain(facts):
    """(domain, None) or (None, why the host is in no NVLink domain)."""
    gpus = facts.get("gpus") if hasattr(facts, "get") else None
    if not gpus or not isinstance(gpus, list):
        return None, "no GPUs in its gpu_facts (gpuops_gpus)"
    domains, problems = set(), []
    for index, gpu in enumerate(gpus):
        domain, problem = _gpu_domain(index, gpu)
        if domain:
            domains.add(domain)
        elif problem:
            problems.append(problem)
    if problems:
        return None, problems[0]
    if not domains:
        return None, "its GPUs report no NVLink fabric (fabric state N/A: not a multi-node NVLink system)"
    if len(domains) > 1:
        return None, "its GPUs are in %d NVLink domains (%s)" % (len(domains), _listed("/".join(d) for d in sorted(domains)))
    return domains.pop(), None


def nvlink_domains(gpu_facts_by_host):
    """Hosts grouped by their GPUs' NVLink domain (fabric ClusterUUID and CliqueId, from gpu_facts).

    gpu_facts_by_host: {inventory host: gpuops_gpus}. Returns {blocks: [{name, domain, hosts}], unplaced:
    {host: why it is in no block}}. Blocks are named b1, b2, ... in the order of their first host name, so
    a rack's place in topology.conf follows its node names.
    """
    groups, unplaced = {}, {}
    for host, facts in _mapping(gpu_facts_by_host, "gpus").items():
        domain, reason = _host_domain(facts)
        if domain:
            groups.setdefault(domain, []).append(str(host))
        else:
            unplaced[str(host)] = reason
    ordered = sorted(((_sorted(hosts), domain) for domain, hosts in groups.items()),
                     key=lambda item: (natural_key(item[0][0]), item[1]))
    blocks = [{"name": "b%d" % number, "domain": "%s/%s" % domain, "hosts": hosts}
              for number, (hosts, domain) in enumerate(ordered, 1)]
    return {"blocks": blocks, "unplaced": unplaced}


def _block_list(blocks):
    """[(name, [hosts])] of blocks given as [{name, hosts}] or {name: [hosts]}."""
    if hasattr(blocks, "items"):
        items = list(blocks.items())
    elif isinstance(blocks, list):
        items = []
        for entry in blocks:
            if not hasattr(entry, "get"):
                raise TopologyError("blocks: each entry must be a mapping with name and hosts, got %s" % shown(entry))
            items.append((entry.get("name"), entry.get("hosts")))
    else:
        raise TopologyError("blocks must be a mapping of block name to hosts, got %s" % type(blocks).__name__)
    result, owner = [], {}
    for name, hosts in items:
        _slurm_name(name, "blocks")
        if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
            raise TopologyError("blocks[%s]: the hosts must be a list of host names" % name)
        for host in hosts:
            if owner.setdefault(host, name) != name:
                raise TopologyError("blocks: host %s is in both %s and %s" % (host, owner[host], name))
        result.append((name, hosts))
    return result


def _block_sizes(value):
    """BlockSizes as a list of ints, checked as Slurm checks them."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise TopologyError("block_sizes must be a list of node counts such as [18, 36], got %s" % shown(value))
    sizes = []
    for item in value:
        if isinstance(item, str) and re.match(r"[0-9]{1,7}\Z", item):
            item = int(item)
        if isinstance(item, bool) or not isinstance(item, int) or not 0 < item <= MAX_BLOCK_NODES:
            raise TopologyError("block_sizes: %s is not a node count (1 to %d)" % (shown(item), MAX_BLOCK_NODES))
        sizes.append(item)
    base = sizes[0]
    for size in sizes:
        ratio = size // base
        if size % base or ratio & (ratio - 1) or ratio > 2 ** MAX_BLOCK_LEVEL:
            raise TopologyError("block_sizes %s: each value must be the first (%d) times a power of two up to 2^%d; "
                                "Slurm stops with 'Invalid BlockSizes value'" % (sizes, base, MAX_BLOCK_LEVEL))
    return sizes


def _block_rules(series, counts, sizes):
    """(BlockSizes to write or None, notes) after Slurm's rules for series; TopologyError where it would stop."""
    if series < BLOCK_SINCE:
        raise TopologyError("topology/block needs Slurm 23.11 or later; this is Slurm %d.%02d" % series)
    if series < BLOCK_SIZES_SINCE:
        if sizes:
            raise TopologyError("block_sizes (BlockSizes) needs Slurm 24.05 or later; Slurm %d.%02d reads BlockLevels"
                                % series)
        if len(set(counts)) > 1:
            raise TopologyError("Slurm %d.%02d needs every block to hold the same number of nodes (it stops with "
                                "'children count no equal bblock_node_cnt'); these hold %s"
                                % (series + (", ".join(str(c) for c in counts),)))
        return None, []
    if series >= SMALL_BLOCKS_SINCE:
        return sizes, []
    base = sizes[0] if sizes else counts[0]
    if min(counts) >= base:
        return sizes, []
    if sizes:
        raise TopologyError("block_sizes: the base block size %d is larger than the smallest block (%d nodes); Slurm "
                            "%d.%02d stops with 'children count lower than bblock_node_cnt'"
                            % ((base, min(counts)) + series))
    implicit = [min(counts) * 2 ** level for level in range(DEFAULT_BLOCK_LEVELS)]
    return implicit, ["blocks hold %s nodes: BlockSizes=%s is written so that the smallest block is the base block "
                      "(Slurm %d.%02d takes the first block's size otherwise and stops on smaller ones)"
                      % ((", ".join(str(c) for c in counts), ",".join(str(s) for s in implicit)) + series)]


def _place_blocks(blocks, index):
    """(BlockName lines, inventory hosts placed, node count of each line, blocks without a Slurm node)."""
    lines, placed, counts, dropped = [], set(), [], []
    for name, hosts in blocks:
        names = []
        for host in _sorted(hosts):
            inventory_host = _match(host, index)
            if inventory_host is not None and index["nodes"][inventory_host] not in names:
                placed.add(inventory_host)
                names.append(index["nodes"][inventory_host])
        if names:
            lines.append("BlockName=%s Nodes=%s" % (name, _hostlist(names)))
            counts.append(len(names))
        else:
            dropped.append(name)
    return lines, placed, counts, dropped


def topology_block_lines(blocks, slurm_nodes, block_sizes=None, series=None, unplaced=None):
    """topology.conf lines for topology/block: {lines, missing, notes}.

    blocks: [{name, hosts}] (nvlink_domains) or {name: [hosts]} (inventory); hosts are inventory hosts or
    Slurm names. slurm_nodes: {inventory host: Slurm node name}. block_sizes: BlockSizes (24.05 and later).
    series: the Slurm release ('24.11'), to apply its rules; unplaced: {host: why it is in no block}.
    """
    index = _host_index(slurm_nodes)
    lines, placed, counts, dropped = _place_blocks(_block_list(blocks), index)
    notes = ["%d block(s) hold no Slurm node and were left out: %s" % (len(dropped), _listed(dropped))] if dropped else []
    if not lines:
        raise TopologyError("no block holds a Slurm node")
    sizes = _block_sizes(block_sizes) if block_sizes not in (None, "", []) else None
    if series is not None:
        sizes, more = _block_rules(_series(series), counts, sizes)
        notes += more
    if sizes:
        lines.append("BlockSizes=%s" % ",".join(str(size) for size in sizes))
    reasons = {}
    for host, reason in (unplaced or {}).items():
        inventory_host = _match(str(host), index)
        if inventory_host is not None:
            reasons[inventory_host] = "in no block: %s" % reason
    unplaced_reason = "in no block (no NVLink domain and no inventory block names it)"
    return {"lines": lines, "missing": _missing(index, placed, reasons, unplaced_reason), "notes": notes}


# --- the plugin ---------------------------------------------------------------------


def _series(slurm_series):
    """(major, minor) of a Slurm series or version ('24.11', '24.11.5')."""
    parts = version_tuple(slurm_series) if isinstance(slurm_series, str) else None
    if parts is None:
        raise TopologyError("cannot read a Slurm release from %s; give it as '24.11' or '24.11.5'" % shown(slurm_series))
    return parts[:2]


def flat_plugin(series):
    """The name of the plugin without topology in a release: topology/none, topology/default or topology/flat."""
    for since, name in FLAT_PLUGINS:
        if series >= since:
            return name
    return FLAT_PLUGINS[-1][1]


def _requested(requested):
    """'auto', 'tree', 'block' or 'flat' of a requested plugin ('topology/tree', 'none', ...)."""
    if requested in (None, ""):
        return "auto"
    word = str(requested).strip().lower()
    if word.startswith("topology/"):
        word = word[len("topology/"):]
    word = {"none": "flat", "default": "flat"}.get(word, word)
    if word not in ("auto", "tree", "block", "flat"):
        raise TopologyError("topology plugin %s is not one this collection writes; use auto, tree, block or flat"
                            % shown(requested))
    return word


def _chosen(word, series, have_tree, have_blocks, requested):
    """(plugin, reason) for an explicit request; TopologyError when the release or the topology cannot serve it."""
    release = "Slurm %d.%02d" % series
    if word == "block":
        if series < BLOCK_SINCE:
            raise TopologyError("topology/block was requested, but %s does not have it (23.11 and later do); "
                                "request tree, flat or auto" % release)
        if not have_blocks:
            raise TopologyError("topology/block was requested, but no NVLink domain or inventory block is known")
        return "topology/block", "topology/block: requested; %s has it and the blocks are known." % release
    if word == "tree":
        if not have_tree:
            raise TopologyError("topology/tree was requested, but no switch tree is known (no ibnetdiscover output "
                                "and no node_switches)")
        return "topology/tree", "topology/tree: requested, and the switch tree is known."
    plugin = flat_plugin(series)
    return plugin, "%s: requested (%s's plugin without topology)." % (plugin, release)


def choose_topology_plugin(slurm_series, have_tree, have_blocks, requested="auto"):
    """(plugin, reason): topology/block when the release has it (23.11+) and blocks are known, else
    topology/tree when a switch tree is known, else the release's plugin without topology. requested:
    auto (the default), tree, block or flat (also none, default, or topology/<name>)."""
    series = _series(slurm_series)
    word = _requested(requested)
    if word != "auto":
        return _chosen(word, series, have_tree, have_blocks, requested)
    release = "Slurm %d.%02d" % series
    if have_blocks and series >= BLOCK_SINCE:
        unused = (" The switch tree is not written: slurm.conf names one topology plugin." if have_tree else "")
        return "topology/block", ("topology/block: %s has it (since 23.11) and the NVLink domains or inventory "
                                  "blocks give the blocks.%s" % (release, unused))
    lacking = (" The NVLink blocks need topology/block, which %s lacks (23.11 and later have it)." % release
               if have_blocks else "")
    if have_tree:
        return "topology/tree", "topology/tree: the switch tree is known." + lacking
    plugin = flat_plugin(series)
    return plugin, "%s: no switch tree is known.%s" % (plugin, lacking or " No NVLink block is known either.")


# --- all at once -------------------------------------------------------------------


def _plan_tree(settings, notes):
    if settings.get("node_switches"):
        if settings.get("ibnetdiscover"):
            notes.append("node_switches is given: the inventory's tree is used, not the ibnetdiscover output")
        return tree_from_inventory(settings["node_switches"], settings.get("switch_parents"))
    if settings.get("ibnetdiscover"):
        return fabric_tree(parse_ibnetdiscover(settings["ibnetdiscover"]), settings.get("ca_hosts"))
    return None


def _plan_blocks(settings, notes):
    """(blocks, unplaced) from the inventory's blocks (checked here), else from the GPUs' NVLink domains."""
    if settings.get("blocks"):
        if settings.get("gpus"):
            notes.append("blocks are given: the inventory's blocks are used, not the GPUs' NVLink domains")
        _block_list(settings["blocks"])
        return settings["blocks"], {}
    domains = nvlink_domains(settings.get("gpus") or {})
    return domains["blocks"], domains["unplaced"]


def topology_plan(slurm_nodes, series, settings=None):
    """The topology of the cluster in one call: {plugin, reason, lines, missing, notes, errors}.

    settings (all optional): ibnetdiscover (its output), ca_hosts ({CA GUID: host}), node_switches ({host:
    leaf switch}), switch_parents ({switch: parent}), blocks ({name: [hosts]}), gpus ({host: gpuops_gpus}),
    block_sizes, plugin (requested: auto, tree, block or flat). The inventory's node_switches and blocks win
    over discovery. Input that gives no topology is reported in errors (one message), never raised.
    """
    try:
        settings = _mapping(settings, "settings")
        unknown = [key for key in settings if key not in PLAN_KEYS]
        if unknown:
            raise TopologyError("settings: unknown key(s) %s; known: %s" % (_listed(sorted(map(str, unknown))),
                                                                            ", ".join(PLAN_KEYS)))
        notes = []
        try:
            tree = _plan_tree(settings, notes)
        except TopologyError:
            # A switch tree is not used when blocks are asked for: what is wrong with it does not stop them (a run
            # that keeps nodes of a block topology knows their blocks, not their switches).
            if settings.get("plugin") not in ("block", "topology/block"):
                raise
            tree = None
        have_tree = bool(tree and any(tree["leaves"].values()))
        if tree and not have_tree:
            notes += tree["notes"] + ["the switch tree is not used: no leaf switch holds a named host"]
        blocks, unplaced = _plan_blocks(settings, notes)
        plugin, reason = choose_topology_plugin(series, have_tree, bool(blocks), settings.get("plugin"))
        if plugin == "topology/tree":
            result = topology_tree_lines(tree, slurm_nodes)
        elif plugin == "topology/block":
            result = topology_block_lines(blocks, slurm_nodes, settings.get("block_sizes"), series, unplaced)
        else:
            result = {"lines": [], "missing": [], "notes": []}
        return {"plugin": plugin, "reason": reason, "lines": result["lines"], "missing": result["missing"],
                "notes": notes + result["notes"], "errors": []}
    except TopologyError as exc:
        return {"plugin": None, "reason": None, "lines": [], "missing": [], "notes": [], "errors": [str(exc)]}


# No error of Python's own leaves a parser: anything no rule foresaw becomes TopologyError.
parse_ibnetdiscover = guarded(TopologyError, "ibnetdiscover")(parse_ibnetdiscover)
topology_plan = guarded(TopologyError, "topology plan")(topology_plan)
