# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A compute node booted from an image joins the cluster (gpuops-node-join, roles/node_image/files).

The image holds Slurm, munge and the GPU stack, with munge and slurmd not enabled.
At boot gpuops-node-join.service reads the node's overlay (a Warewulf runtime
overlay or cloud-init lays it), installs the cluster's munge key, checks the
GPUs against the node's hardware profile and starts slurmd; a node whose check
fails is drained before slurmd registers it, and slurmd is not started at all
when the drain cannot be made.

The overlay, OVERLAY_DIR:

* ``join.conf``: ``key=value`` lines, ``#`` comments, blank lines; a value may
  be wrapped in matching quotes. ``conf_server`` (required: the controllers,
  ``host[:port]`` comma-separated, as slurmd --conf-server takes them),
  ``cluster_name`` (required: the ClusterName of the cluster's slurm.conf),
  ``node_name`` (the short hostname when not given), ``profile`` (the node's
  hardware profile; else the image's own).
* ``munge.key``: the cluster's munge key (binary, at least 32 bytes).

The image manifest, MANIFEST (written when the image is built): a JSON object
with ``profiles`` ({name: {"gres_value": "gpu:<type>:<n>,...", "gpu_count": n,
...}}) and ``profile`` (the image's default profile name, or null).

What the program writes under RUN_DIR: SLURMD_ENV (slurmd's options; the
image's slurmd unit drop-in reads it with ``EnvironmentFile=-``), the client
slurm.conf the drain is made with (CLIENT_CONF_NAME) and the result
(RESULT_NAME, JSON).

Pure functions, standard library and the collection's GPU parsers only: the
program on the node carries a copy of what this file imports. Functions that
read what an admin or the image gave return errors (one line each, saying
what to fix); NodeJoinError is for arguments of the wrong shape (a bug).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import TEXT_TYPES, as_text, clip, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import (
    NO_DEVICES,
    NO_DRIVER,
    GpuFactsError,
    apply_mig_profiles,
    parse_smi_list,
    parse_smi_xml,
    slurm_gres,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.health._health import HealthError, expectation
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._gres import gres_count
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, expand

OVERLAY_DIR = "/etc/gpuops/node"
JOIN_CONF_NAME = "join.conf"
MUNGE_KEY_NAME = "munge.key"
MANIFEST = "/etc/gpuops/image/manifest.json"
MUNGE_KEY_PATH = "/etc/munge/munge.key"
# gpuops.cluster.node_health's settings file (node_health_config_path), when the image has the health check.
HEALTH_CONFIG = "/etc/gpuops/health.json"
MUNGE_USER = "munge"
# An image label: a name and a version, as the image role allows them (no white space, no quotes).
_IMAGE_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}:[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}\Z")
RUN_DIR = "/run/gpuops/node-join"
SLURMD_ENV_NAME = "slurmd.env"
# The file the image's slurmd drop-in names: EnvironmentFile=-/run/gpuops/node-join/slurmd.env
SLURMD_ENV = RUN_DIR + "/" + SLURMD_ENV_NAME
CLIENT_CONF_NAME = "slurm.conf"
# This boot's name and address of the node, for the image's exporters (their drop-ins read it:
# EnvironmentFile=/run/gpuops/node-join/node.env, gpuops.cluster.node_image).
NODE_ENV_NAME = "node.env"
# What the exporters listen on when no address toward the controllers is found: nothing outside the node.
NO_ADDRESS = "127.0.0.1"
RESULT_NAME = "result.json"

KEYS = ("conf_server", "cluster_name", "node_name", "profile")
REQUIRED = ("conf_server", "cluster_name")
# The most of an overlay file or of the manifest read: more is not one of them.
TEXT_LIMIT = 65536
MANIFEST_LIMIT = 1 << 20
# munged refuses a key shorter than this (MUNGE_KEY_LEN_MIN_BYTES); mungekey --create makes 128 bytes.
MUNGE_KEY_MIN = 32
MUNGE_KEY_LIMIT = 1 << 20
# slurmctld's port when conf_server gives none (SLURMCTLD_PORT, as slurmd --conf-server takes it).
SLURMCTLD_PORT = 6817
REASON_PREFIX = "gpuops-join:"
# Slurm keeps a reason of any length; kept short to stay readable, as gpuops-health's (_health.REASON_LIMIT).
REASON_LIMIT = 200
# What gpu_check is told when nvidia-smi is not installed.
SMI_MISSING = "nvidia-smi is not installed (not found on PATH)"

# A Slurm node name, the cluster model's rule (_slurm_model._NODE_NAME).
_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
# ClusterName: Slurm keeps at most 40 characters (its accounting tables are named after it).
_CLUSTER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}\Z")
_PROFILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(r"%s(?:\.%s)*\Z" % (_LABEL, _LABEL))
_SERVER = re.compile(r"(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]]+))(?::([0-9]{1,5}))?\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ADDRESS = re.compile(r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}\Z|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*\Z")
_CONTROL = re.compile(u"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class NodeJoinError(Exception):
    """An argument of the wrong shape (a bug in the caller, not the admin's input)."""


def _text(value, what):
    if not isinstance(value, TEXT_TYPES):
        raise NodeJoinError("%s must be text, not %s" % (what, shown(value, 40)))
    return value


def _unquoted(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


# ---------------------------------------------------------------------------
# join.conf

def parse_conf_server(text):
    """([{host, port, ipv6}], error) of a conf_server value: 'ctl1:6817,ctl2' as slurmd --conf-server takes it.

    Every controller listens on one port (Slurm's SlurmctldPort): a port given for one and not another means
    the default (6817) there, and ports that differ are an error. error is None or one line saying what to fix.
    """
    text = _text(text, "conf_server")
    entries = [item.strip() for item in text.split(",")]
    if not text.strip():
        return [], "conf_server is empty: give the controllers as host[:port],... (slurmd --conf-server's form)"
    controllers = []
    for entry in entries:
        if not entry:
            return [], ("conf_server %s has an empty entry: give the controllers as host[:port], separated by single "
                        "commas" % shown(text))
        match = _SERVER.match(entry)
        host = match and (match.group(1) or match.group(2))
        ipv6 = bool(match and match.group(1))
        if not match or (ipv6 and ":" not in host) or (not ipv6 and not _HOST.match(host)):
            return [], ("conf_server entry %s is not host[:port]: give a host name or an address (an IPv6 address "
                        "in brackets, [fd00::1]:6817)" % shown(entry))
        port = match.group(3)
        if port is not None and not 1 <= int(port) <= 65535:
            return [], "conf_server entry %s: port %s is not 1 to 65535" % (shown(entry), port)
        controllers.append({"host": host, "port": int(port) if port else SLURMCTLD_PORT, "ipv6": ipv6})
    ports = sorted(set(item["port"] for item in controllers))
    if len(ports) > 1:
        return [], ("conf_server %s names the controllers on different ports (%s); Slurm's controllers share one "
                    "SlurmctldPort (%d when none is given): give each the same port"
                    % (shown(text), ", ".join(str(port) for port in ports), SLURMCTLD_PORT))
    hosts = [item["host"].lower() for item in controllers]
    repeated = sorted(set(host for host in hosts if hosts.count(host) > 1))
    if repeated:
        return [], "conf_server names %s more than once: give each controller once" % ", ".join(repeated)
    return controllers, None


def _check_value(key, value):
    """None, or what is wrong with one join.conf value (the message names the key)."""
    if key == "conf_server":
        return parse_conf_server(value)[1]
    if key == "cluster_name" and not _CLUSTER_NAME.match(value):
        return ("cluster_name %s is not a Slurm ClusterName: letters, digits, '_' and '-', at most 40, as the "
                "cluster's slurm.conf has it" % shown(value))
    if key == "node_name" and not _NODE_NAME.match(value):
        return ("node_name %s is not a Slurm node name: letters, digits, '_' and '-', at most 64, no domain; leave "
                "it out to use the short hostname" % shown(value))
    if key == "profile" and not _PROFILE.match(value):
        return ("profile %s is not a profile name: letters, digits, '_', '.' and '-', at most 64; leave it out to "
                "use the image's own" % shown(value))
    return None


def parse_join_conf(text, name=JOIN_CONF_NAME):
    """(conf, errors) of a join.conf's text (or bytes).

    conf: {"conf_server", "cluster_name", "node_name", "profile"} (None for one not given or not valid), and
    "controllers" (parse_conf_server's list). errors: one line each, naming the file (name), the line and the fix;
    the conf is usable only when there are none.
    """
    text = as_text(text, name, NodeJoinError)
    conf = dict((key, None) for key in KEYS)
    conf["controllers"] = []
    if len(text) > TEXT_LIMIT:
        return conf, ["%s is over %d characters; a join.conf has a few lines: is it the right file?"
                      % (name, TEXT_LIMIT)]
    errors = []
    seen = {}
    # Split at line feeds only (a CR before one is white space): line numbers are those an editor shows.
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = "%s line %d" % (name, number)
        if "=" not in line:
            errors.append("%s: %s is not key=value: write e.g. conf_server=ctl1:6817" % (where, shown(clip(line))))
            continue
        key, value = line.split("=", 1)
        key, value = key.strip(), _unquoted(value)
        if key not in KEYS:
            hint = " (keys are lower case)" if key.lower() in KEYS else ""
            errors.append("%s: unknown key %s%s: the keys are %s" % (where, shown(key, 40), hint, ", ".join(KEYS)))
            continue
        if key in seen:
            errors.append("%s: %s is given again (first on line %d): keep one" % (where, key, seen[key]))
            continue
        seen[key] = number
        if not value:
            errors.append("%s: %s is empty: give its value or leave the line out" % (where, key))
            continue
        problem = _check_value(key, value)
        if problem:
            errors.append("%s: %s" % (where, problem))
            continue
        conf[key] = value
    for key in REQUIRED:
        if key not in seen:
            fix = ("conf_server=<controller>[:port],... (the controllers, as slurmd --conf-server takes them)"
                   if key == "conf_server" else "cluster_name=<the ClusterName of the cluster's slurm.conf>")
            errors.append("%s: %s is missing: add %s" % (name, key, fix))
    if conf["conf_server"]:
        conf["controllers"] = parse_conf_server(conf["conf_server"])[0]
    return conf, errors


def munge_key_error(data, name=MUNGE_KEY_NAME):
    """None, or why data (bytes; None when the file is missing) is not a munge key munged accepts."""
    if data is None:
        return "%s is missing: the node's overlay must carry the cluster's munge key (/etc/munge/munge.key)" % name
    if not isinstance(data, (bytes, bytearray)):
        raise NodeJoinError("the munge key must be bytes, not %s" % type(data).__name__)
    if len(data) < MUNGE_KEY_MIN:
        return ("%s has %d bytes; munged needs at least %d: copy the cluster's /etc/munge/munge.key (a controller's) "
                "into the overlay" % (name, len(data), MUNGE_KEY_MIN))
    if len(data) > MUNGE_KEY_LIMIT:
        return "%s is over %d bytes: not a munge key (mungekey makes 128); copy the cluster's" % (name, MUNGE_KEY_LIMIT)
    return None


def short_hostname(hostname):
    """The host's name up to its first dot: the node name slurmd takes when not given -N."""
    return _text(hostname, "hostname").strip().split(".", 1)[0]


def node_name(conf, hostname):
    """(the node's Slurm name, error): join.conf's node_name, else the short hostname."""
    if conf.get("node_name"):
        return conf["node_name"], None
    name = short_hostname(hostname)
    if not _NODE_NAME.match(name):
        return None, ("the hostname %s is not a Slurm node name (letters, digits, '_' and '-'): set node_name= in "
                      "join.conf" % shown(name))
    return name, None


# ---------------------------------------------------------------------------
# The image manifest and the node's profile

def parse_manifest(text, name=MANIFEST):
    """(manifest, error) of the manifest file's text: a JSON object, else one line saying what is wrong."""
    text = as_text(text, name, NodeJoinError)
    if len(text) > MANIFEST_LIMIT:
        return None, "%s is over %d characters: not an image manifest; rebuild the image" % (name, MANIFEST_LIMIT)
    try:
        manifest = json.loads(text)
    except ValueError as exc:
        return None, "%s is not JSON (%s): rebuild the image" % (name, clip(str(exc), 80))
    except RecursionError:
        return None, "%s is nested too deep to read: not an image manifest; rebuild the image" % name
    if not isinstance(manifest, dict):
        return None, "%s holds %s, not a JSON object: rebuild the image" % (name, type(manifest).__name__)
    return manifest, None


def _profile_error(name, profile):
    if not isinstance(profile, dict):
        return "the image's profile %s is %s, not an object: rebuild the image" % (shown(name), shown(profile, 40))
    gres, count = profile.get("gres_value"), profile.get("gpu_count")
    if not isinstance(gres, TEXT_TYPES):
        return "the image's profile %s has no gres_value text (%s): rebuild the image" % (shown(name), shown(gres, 40))
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        return ("the image's profile %s has gpu_count %s, not a whole number: rebuild the image"
                % (shown(name), shown(count, 40)))
    if gres_count(gres) != count:
        return ("the image's profile %s says gpu_count %d but its gres_value %s holds %d GPUs: rebuild the image"
                % (shown(name), count, shown(gres), gres_count(gres)))
    return None


def node_profile(manifest, conf):
    """(profile name, profile, error): join.conf's profile, else the manifest's, else its only one.

    manifest: parse_manifest's object; conf: parse_join_conf's. error is one line (then the others are None).
    """
    if not isinstance(manifest, dict) or not isinstance(conf, dict):
        raise NodeJoinError("node_profile takes the manifest and join.conf as dicts")
    profiles = manifest.get("profiles")
    if not isinstance(profiles, dict) or not profiles:
        return None, None, ("the image manifest has no profiles (%s): rebuild the image with the node's hardware "
                            "profile" % shown(profiles, 40))
    carried = clip(", ".join(sorted(str(name) for name in profiles)), 120)
    default = manifest.get("profile")
    if conf.get("profile"):
        name = conf["profile"]
        if name not in profiles:
            return None, None, ("join.conf names profile %s, which this image does not carry (it carries %s): fix "
                                "profile= in the node's overlay, or boot an image built with it" % (shown(name), carried))
    elif default is not None:
        name = default
        if not isinstance(name, TEXT_TYPES) or name not in profiles:
            return None, None, ("the image manifest's profile %s is not one of its profiles (%s): rebuild the "
                                "image, or set profile= in join.conf" % (shown(name), carried))
    elif len(profiles) == 1:
        name = list(profiles)[0]
    else:
        return None, None, ("this image carries %d profiles (%s) and neither join.conf nor the image names the "
                            "node's: set profile= in join.conf" % (len(profiles), carried))
    error = _profile_error(name, profiles[name])
    if error:
        return None, None, error
    return name, profiles[name], None


# ---------------------------------------------------------------------------
# The GPU check

def smi_failure(rc, out, err, timed_out, timeout):
    """Why nvidia-smi -q -x gave no XML, in one line: its line that names the driver, else its first error line."""
    if timed_out:
        return "nvidia-smi -q -x ran past %d s" % timeout
    texts = (err or "", out or "")
    for text in texts:
        for line in text.splitlines():
            if any(marker in line for marker in NO_DRIVER + (NO_DEVICES,)):
                return "nvidia-smi: %s" % clip(line, 160)
    for text in texts:
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            return "nvidia-smi: %s" % clip(lines[0], 160)
    return "nvidia-smi -q -x exited %s with no output" % rc


def needs_listing(smi_xml):
    """Whether the GPUs of an nvidia-smi -q -x answer have MIG devices: their Slurm types need nvidia-smi -L."""
    try:
        return any(gpu.get("mig_devices") for gpu in parse_smi_xml(smi_xml)["gpus"])
    except GpuFactsError:
        return False


def _gpus_text(gres):
    count = gres_count(gres)
    if not count:
        return "no GPU"
    return "%d GPU%s (%s)" % (count, "" if count == 1 else "s", gres)


def _normal(gres):
    return ",".join(sorted(item.strip() for item in gres.split(",") if item.strip()))


def gpu_check(smi_xml, smi_error, profile, smi_list=None, profile_name=None):
    """None when the node's GPUs are what its profile wants, else the reason (one line).

    smi_xml: nvidia-smi -q -x's output, or None with smi_error saying why there is none (SMI_MISSING when
    nvidia-smi is not installed, else smi_failure's line). profile: node_profile's. smi_list: nvidia-smi -L's
    output, for GPUs with MIG devices (needs_listing). The GPUs' Gres is the converge path's rule (gpu_facts:
    parse_smi_xml, slurm_gres) and must equal the profile's gres_value. A profile without GPUs passes on a node
    without nvidia-smi, or whose nvidia-smi finds no GPU or no driver.
    """
    if not isinstance(profile, dict) or not isinstance(profile.get("gres_value"), TEXT_TYPES):
        raise NodeJoinError("gpu_check takes a profile checked by node_profile")
    want = profile["gres_value"]
    named = "profile %s" % profile_name if profile_name else "the profile"
    if smi_xml is None:
        error = _text(smi_error or "nvidia-smi gave no output", "smi_error")
        no_gpu = error == SMI_MISSING or any(marker in error for marker in NO_DRIVER + (NO_DEVICES,))
        if not gres_count(want) and no_gpu:
            return None
        return "%s; %s wants %s" % (clip(error, 160), named, _gpus_text(want))
    try:
        gpus = parse_smi_xml(smi_xml)["gpus"]
        if smi_list is not None and any(gpu.get("mig_devices") for gpu in gpus):
            gpus = apply_mig_profiles(gpus, parse_smi_list(smi_list))
        have = slurm_gres(gpus)
    except GpuFactsError as exc:
        return "%s; %s wants %s" % (clip(str(exc), 160), named, _gpus_text(want))
    if _normal(have) == _normal(want):
        return None
    return "nvidia-smi shows %s; %s wants %s" % (_gpus_text(have), named, _gpus_text(want))


# ---------------------------------------------------------------------------
# What is written, and the drain

def client_conf(cluster_name, conf_server):
    """The client slurm.conf a Slurm command (scontrol) reaches the controllers with before slurmd runs.

    The same minimal configuration slurmd makes for itself from --conf-server to fetch the cluster's
    (Slurm's src/common/fetch_config.c, _init_minimal_conf_server_config): SlurmctldPort (the first
    controller's), one SlurmctldHost line per controller in the given order, ClusterName, and
    CommunicationParameters=EnableIPv6 when a controller is an IPv6 address. read_config requires only
    ClusterName and a SlurmctldHost; authentication keeps its default, auth/munge.
    """
    cluster_name = _text(cluster_name, "cluster_name")
    if not _CLUSTER_NAME.match(cluster_name):
        raise NodeJoinError("cluster_name %s is not a ClusterName" % shown(cluster_name))
    controllers, error = parse_conf_server(conf_server)
    if error:
        raise NodeJoinError(error)
    lines = ["# gpuops-node-join: the controllers, for scontrol before slurmd runs (slurmd fetches the cluster's "
             "own slurm.conf)",
             "ClusterName=%s" % cluster_name,
             "SlurmctldPort=%d" % controllers[0]["port"]]
    lines.extend("SlurmctldHost=%s" % item["host"] for item in controllers)
    if any(item["ipv6"] for item in controllers):
        lines.append("CommunicationParameters=EnableIPv6")
    return "\n".join(lines) + "\n"


def _conf_server_text(controllers):
    return ",".join(("[%s]" % item["host"] if item["ipv6"] else item["host"]) + ":%d" % item["port"]
                    for item in controllers)


def slurmd_env(conf_server, node, hostname):
    """The slurmd environment file: SLURMD_OPTIONS with --conf-server, and -N when the node's name is not the
    short hostname (slurmd's own default)."""
    controllers, error = parse_conf_server(conf_server)
    if error:
        raise NodeJoinError(error)
    node = _text(node, "node")
    if not _NODE_NAME.match(node):
        raise NodeJoinError("node %s is not a Slurm node name" % shown(node))
    options = "--conf-server %s" % _conf_server_text(controllers)
    if node != short_hostname(hostname):
        options += " -N %s" % node
    return ("# Written by gpuops-node-join at boot, read by slurmd's unit (EnvironmentFile=-%s).\n"
            'SLURMD_OPTIONS="%s"\n' % (SLURMD_ENV, options))


def node_env(node, address):
    """node.env for this boot: GPUOPS_NODE_NAME (the node's Slurm name), GPUOPS_NODE_ADDRESS (the address the
    node reaches its controllers from, which the image's exporters listen on; NO_ADDRESS when none) and
    GPUOPS_NODE_LISTEN (the same, bracketed when IPv6)."""
    node = _text(node, "node")
    if not _NODE_NAME.match(node):
        raise NodeJoinError("node %s is not a Slurm node name" % shown(node))
    address = _text(address or NO_ADDRESS, "address")
    if not _ADDRESS.match(address):
        raise NodeJoinError("address %s is not an IPv4 or IPv6 address" % shown(address))
    # GPUOPS_NODE_LISTEN: the address as a listen address takes it before ':port' (an IPv6 one in brackets).
    return ("# Written by gpuops-node-join at boot: this node's name and address, for the image's exporters.\n"
            "GPUOPS_NODE_NAME=%s\nGPUOPS_NODE_ADDRESS=%s\nGPUOPS_NODE_LISTEN=%s\n"
            % (node, address, "[%s]" % address if ":" in address else address))


def drain_reason(reason):
    """The node's Slurm reason for a failed check: 'gpuops-join: <reason>', one line, at most REASON_LIMIT
    characters (cut with '...'); double quotes become single ones (scontrol strips a quote at either end)."""
    text = _CONTROL.sub(" ", _text(reason, "reason")).replace('"', "'")
    text = "%s %s" % (REASON_PREFIX, " ".join(text.split()) or "the node's check failed")
    if len(text) > REASON_LIMIT:
        text = text[:REASON_LIMIT - 3].rstrip() + "..."
    return text


def own_drain(show_node, node):
    """Whether scontrol -o show node's line for node holds it drained with a gpuops-join reason (a drain of an
    earlier boot: a passing check resumes it; an admin's or gpuops-health's drain is left alone)."""
    for line in _text(show_node, "show_node").splitlines():
        if not re.match(r"NodeName=%s(\s|$)" % re.escape(node), line.strip()):
            continue
        state = re.search(r"(?:^|\s)State=(\S+)", line)
        reason = re.search(r"(?:^|\s)Reason=(.*)$", line)
        return bool(state and "DRAIN" in state.group(1).upper() and reason
                    and reason.group(1).strip().startswith(REASON_PREFIX))
    return False


# The node's Comment in Slurm names the image it booted (image_comment): the rolling reimage reads it from the
# controller, which never connects to the node.
IMAGE_COMMENT_PREFIX = "gpuops-image="


def image_label(manifest):
    """'name:version' of the image the manifest describes, or None when it names neither."""
    if not isinstance(manifest, dict):
        return None
    name, version = manifest.get("name"), manifest.get("version")
    if not isinstance(name, str) or not isinstance(version, str) or not name.strip() or not version.strip():
        return None
    label = "%s:%s" % (name.strip(), version.strip())
    return label if _IMAGE_LABEL.match(label) else None


def image_comment(label):
    """The node Comment that records the image: gpuops-image=<name>:<version>."""
    return IMAGE_COMMENT_PREFIX + label


def join_plan(conf, node, profile_name, check_reason, key_differs, hostname, run_dir=RUN_DIR,
              munge_key_path=MUNGE_KEY_PATH, image=None, health=None, address=None):
    """The ordered steps of a join: [{"step", "what", ...}], each a thing the program does, in this order.

    munge_key (write: key_differs), start munge, slurmd_env (path, content); on a failed check (check_reason not
    None) client_conf (path, content) and drain (reason; slurmd only starts once it is done); on a passing one
    client_conf and resume (only when Slurm holds the node drained by gpuops-join: own_drain); node_env (path,
    content: node_env, the node's name and address for the exporters); then, with an image
    label (image_label), record_image (the node's Comment names the image); with the health check's settings
    for this boot (health: {"path", "content"}, health_settings), health_settings, before slurmd runs its hooks;
    start slurmd.
    """
    if not isinstance(conf, dict) or not conf.get("conf_server") or not conf.get("cluster_name"):
        raise NodeJoinError("join_plan takes a join.conf parse_join_conf found no error in")
    env_path = "%s/%s" % (run_dir.rstrip("/"), SLURMD_ENV_NAME)
    renamed = "" if node == short_hostname(hostname) else " -N " + node
    conf_path = "%s/%s" % (run_dir.rstrip("/"), CLIENT_CONF_NAME)
    steps = [
        {"step": "munge_key", "path": munge_key_path, "write": bool(key_differs),
         "what": ("install the overlay's munge key as %s (owner munge, mode 0400)" % munge_key_path if key_differs
                  else "%s already holds the overlay's munge key" % munge_key_path)},
        {"step": "start", "unit": "munge", "what": "systemctl start munge"},
        {"step": "slurmd_env", "path": env_path, "content": slurmd_env(conf["conf_server"], node, hostname),
         "what": "write %s (slurmd --conf-server %s%s)" % (env_path, conf["conf_server"], renamed)},
        {"step": "client_conf", "path": conf_path, "content": client_conf(conf["cluster_name"], conf["conf_server"]),
         "what": "write %s (ClusterName and the controllers, for scontrol)" % conf_path},
    ]
    if check_reason is not None:
        reason = drain_reason(check_reason)
        steps.append({"step": "drain", "node": node, "reason": reason,
                      "argv": ["update", "NodeName=%s" % node, "State=DRAIN", "Reason=%s" % reason],
                      "what": "drain %s before slurmd registers it (profile %s): %s" % (node, profile_name, reason)})
    else:
        steps.append({"step": "resume", "node": node, "argv": ["update", "NodeName=%s" % node, "State=RESUME"],
                      "what": "resume %s if Slurm holds it drained by gpuops-join (an earlier boot's check)" % node})
    node_env_path = "%s/%s" % (run_dir.rstrip("/"), NODE_ENV_NAME)
    steps.append({"step": "node_env", "path": node_env_path, "content": node_env(node, address),
                  "what": "write %s (the exporters listen on %s)" % (node_env_path, address or NO_ADDRESS)})
    if health:
        steps.append({"step": "health_settings", "path": health["path"], "content": health["content"],
                      "what": "write %s (the health check: this node's name and its profile's GPUs)" % health["path"]})
    if image:
        steps.append({"step": "record_image", "node": node, "image": image,
                      "argv": ["update", "NodeName=%s" % node, "Comment=%s" % image_comment(image)],
                      "what": "record the image in %s's Comment (%s)" % (node, image_comment(image))})
    steps.append({"step": "start", "unit": "slurmd",
                  "what": "systemctl start slurmd" + (" (only once the drain is made)" if check_reason else "")})
    return steps


# The device files of a gres.conf line (File=/dev/nvidia[0-1]), and the minor number at the end of each.
_GRES_FILE = re.compile(r"(?:^|\s)File=(\S+)")
_MINOR = re.compile(r"/dev/nvidia([0-9]+)\Z")


def profile_minors(profile):
    """The device minors of a profile's GPUs, in gres.conf order (the numbering Slurm gives a job's GPUs)."""
    minors = []
    for line in (profile or {}).get("gres_lines") or [] if isinstance(profile, dict) else []:
        match = _GRES_FILE.search(line) if isinstance(line, str) else None
        try:
            paths = expand(match.group(1)) if match else []
        except HostlistError:
            paths = []
        minors.extend(int(found.group(1)) for found in (_MINOR.match(path) for path in paths) if found)
    return minors


def health_settings(settings, node, profile):
    """The health check's settings (gpuops.cluster.node_health's file) for this boot: the node's Slurm name, and
    what its GPUs must be from its hardware profile (count, models, device minors; no PCI bus ids, which no profile
    knows). The image was built on a host without GPUs; everything else of the file is kept. None when settings is
    not the mapping node_health writes."""
    if not isinstance(settings, dict) or not isinstance(profile, dict):
        return None
    try:
        gpus = expectation(profile.get("gres_value") or "", [{"minor_number": minor} for minor in profile_minors(profile)])
    except HealthError:
        return None
    expect = dict(settings.get("expect") or {}) if isinstance(settings.get("expect"), dict) else {}
    expect.update((key, gpus[key]) for key in ("gpu_count", "gpu_types", "pci_bus_ids", "gpu_minors"))
    return dict(settings, node=node, expect=expect)


def result(node, profile_name, check_reason, drained, slurmd_started, time_text, **more):
    """The result record (result.json): node, profile, check ("passed"/"failed"), reason, drained, slurmd_started,
    time, and any more keys given."""
    record = {"node": node, "profile": profile_name, "check": "failed" if check_reason else "passed",
              "reason": check_reason, "drained": bool(drained), "slurmd_started": bool(slurmd_started),
              "time": time_text}
    record.update(more)
    return record
