# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring plan: who is scraped where, Prometheus' and Alertmanager's configuration, input checks.

Pure functions, computed once per play on the monitoring host from every
host's few values (``targets``). Each target is scraped at its cluster
address (``gpuops_monitoring_address``, else the address of its default
route) and labelled with its inventory name (``instance``) and its Slurm
node name (``node``, the collection's one rule), so alerts and dashboards
join Prometheus series with what Slurm says about the node.

A host the running prometheus.yml scrapes and this run's inventory does not
hold at all (an AWX slice, a --limit inventory, an inventory mistake) stays a
target as the running file has it (``kept_targets``): a host leaves
prometheus.yml only when the inventory says so, or when prometheus_remove_hosts
(or slurm_remove_nodes) names it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

try:
    import yaml
except ImportError:  # pragma: no cover - PyYAML comes with ansible-core on the controller
    yaml = None

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import image_nodes as _image_nodes
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import node_name, node_profiles
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_rest import NATIVE_ENDPOINTS, conf_has_native_metrics
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown


class MonitoringError(Exception):
    """Input the monitoring plan cannot use."""


JOBS = ("node", "gpu", "slurm")


def _address(text):
    try:
        return str(ipaddress.ip_address(str(text)))
    except ValueError:
        return None


def host_target(host, variables, by_name=False):
    """{host, node, address} of one inventory host from its hostvars, or {host, error}.

    by_name: a host whose address is not known (no gpuops_monitoring_address,
    no default route in its facts) is scraped by the name Ansible reaches it
    by (ansible_host, else its inventory name), which Prometheus resolves;
    "by_name" says so.
    """
    variables = variables or {}
    facts = variables.get("ansible_facts") or {}
    given = variables.get("gpuops_monitoring_address")
    default = (facts.get("default_ipv4") or {}).get("address")
    address = _address(given) if given else _address(default) if default else None
    if given and not address:
        return {"host": host, "error": "gpuops_monitoring_address %r is not an IP address" % (given,)}
    named = False
    if not address and by_name:
        address, named = str(variables.get("ansible_host") or host), True
    if not address:
        return {"host": host, "error": "no address: set gpuops_monitoring_address, or gather its facts "
                                       "(it has no default IPv4 route)"}
    gpus = facts.get("gpuops_gpus") if hasattr(facts.get("gpuops_gpus"), "get") else None
    return {"host": host, "address": address,
            "node": node_name(host, variables.get("slurm_node_name"), facts.get("hostname")),
            # False only when gpu_facts ran there and found no GPU (nvidia-smi or PCI bus): no GPU exporter.
            "gpus": None if gpus is None else bool(gpus.get("count") or gpus.get("pci_gpus")), "by_name": named}


def _hostport(address, port):
    return "[%s]:%d" % (address, port) if ":" in address else "%s:%d" % (address, port)


def image_targets(image_nodes, profiles):
    """[{host, node, address, gpus}] of the nodes booted from a node image (slurm_image_nodes, by their
    slurm_node_profiles): never in the inventory, scraped at their NodeAddr, else by their Slurm name; gpus when
    their profile has GPUs. Entries with errors are left out (the Slurm roles' inventory checks name them)."""
    described = node_profiles({"node_profiles": profiles})[0]
    nodes = _image_nodes({"image_nodes": image_nodes, "node_profiles": profiles}, described)[0]
    return [{"host": node["name"], "node": node["name"], "address": node["addr"] or node["name"],
             "gpus": bool(described[node["profile"]].get("gpu_count"))} for node in nodes]


def targets(hostvars, hosts, gpu_hosts, slurm_hosts, monitoring_hosts, by_name=False, running=None, inventory=None,
            remove=None, image=None):
    """{"targets": {job: [target]}, "errors": [...], "by_name": [...], "kept": [...]} for the scrape jobs node (every
    host), gpu, slurm and the monitoring host's own (prometheus, alertmanager). A GPU host whose gathered
    facts show no GPU is not a gpu target (the role installs no GPU exporter there). by_name: see
    host_target; the hosts scraped by name are listed.

    running: the text of the running prometheus.yml; inventory: every host of this run's inventory (groups['all'];
    None: the hosts given); remove: inventory or Slurm node names that leave prometheus.yml on purpose. image:
    image_targets' nodes, scraped in the node job (and the gpu job when they have GPUs) after the inventory's. The targets
    of the running file that kept_targets keeps join their jobs (each in its place in the running file, so a slice
    writes what the whole inventory would) and "kept" names their hosts.
    """
    seen, errors, named = {}, [], []
    for host in list(hosts) + list(monitoring_hosts):
        if host not in seen:
            seen[host] = host_target(host, hostvars.get(host) if hasattr(hostvars, "get") else hostvars[host], by_name)
            if seen[host].get("error"):
                errors.append("%s: %s" % (host, seen[host]["error"]))
            elif seen[host]["by_name"]:
                named.append(host)
    out = {"node": [], "gpu": [], "slurm": [], "prometheus": [], "alertmanager": []}
    for job, members in (("node", hosts), ("gpu", gpu_hosts), ("slurm", slurm_hosts),
                         ("prometheus", monitoring_hosts), ("alertmanager", monitoring_hosts)):
        for host in members:
            if host in seen and not seen[host].get("error") and not (job == "gpu" and seen[host]["gpus"] is False):
                out[job].append(dict((key, seen[host][key]) for key in ("host", "node", "address")))
    own = set(target["node"] for target in out["node"])
    for node in image or []:
        if node["node"] not in own:
            target = dict((key, node[key]) for key in ("host", "node", "address"))
            out["node"].append(target)
            if node.get("gpus"):
                out["gpu"].append(dict(target))
    if inventory is None:
        inventory = list(hosts) + list(gpu_hosts) + list(slurm_hosts) + list(monitoring_hosts)
    if image and isinstance(inventory, (list, tuple)):
        # The image nodes are the plan's own targets (never kept from the running file as strangers).
        inventory = list(inventory) + [node["host"] for node in image]
    found = running_targets(running)
    kept = _kept(found, inventory, remove)
    # A node the inventory holds under another name (renamed, same Slurm node name) is not scraped twice.
    own_nodes = set(target["node"] for members in out.values() for target in members)
    kept_hosts = set()
    for job in JOBS:
        extra = [target for target in kept[job] if target["node"] not in own_nodes]
        kept_hosts.update(target["host"] for target in extra)
        out[job] = _in_running_order(out[job], extra, found[job])
    return {"targets": out, "errors": errors, "by_name": named, "kept": sorted(kept_hosts)}


def _in_running_order(own, kept, running):
    """own (in inventory order) and kept (in the running file's order) as one list: each kept target before the
    first target of own that comes after it in the running file. A slice whose own hosts keep the whole inventory's
    order gives back the running file's order, so it writes what a run of the whole inventory writes."""
    if not kept:
        return own
    place = dict((target["host"], index) for index, target in enumerate(running))
    out, next_kept = [], 0
    for target in own:
        at = place.get(target["host"])
        while next_kept < len(kept) and at is not None and place[kept[next_kept]["host"]] < at:
            out.append(kept[next_kept])
            next_kept += 1
        out.append(target)
    return out + kept[next_kept:]


# A scrape target as prometheus_config writes it: name or IPv4 address and port, or [IPv6 address] and port.
_TARGET_RE = re.compile(r"(?:\[([0-9A-Fa-f:.]{2,45})\]|([A-Za-z0-9._-]{1,253})):([0-9]{1,5})\Z")
_LABEL_LIMIT = 253
# The targets of one static config looked at (prometheus_config writes one).
_TARGETS_READ = 8


def _label(value):
    ok = isinstance(value, str) and 0 < len(value) <= _LABEL_LIMIT and value.isprintable() and value.strip() == value
    return value if ok else None


def _target_address(text):
    """The address of a target "addr:port" or "[v6]:port", or None for anything else."""
    match = _TARGET_RE.match(text) if isinstance(text, str) else None
    if not match or not 0 < int(match.group(3)) <= 65535:
        return None
    if match.group(1) is not None:
        address = _address(match.group(1))
        return address if address and ":" in address else None
    return match.group(2)


def running_targets(text):
    """{job: [target]} of the jobs in JOBS of a prometheus.yml's text, in the file's order.

    A target is a static config with an instance label and a target "addr:port" or "[v6]:port"; its node is its
    node label (without one: the instance's Slurm name by the collection's rule). The first of each instance in
    each job counts. Text that is missing, not YAML or not of prometheus.yml's shape gives nothing; a static
    config of another shape is passed over (never raises). Each job and static config is read once, even when
    YAML aliases repeat it.
    """
    found = dict((job, []) for job in JOBS)
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    if not isinstance(text, str) or not text.strip() or yaml is None:
        return found
    # Exactly str: libyaml refuses a subclass (Ansible's templated text is one).
    text = str.__str__(text)
    try:
        config = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # nosec B506 - a safe loader
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return found
    jobs = config.get("scrape_configs") if isinstance(config, dict) else None
    hosts, read = dict((job, set()) for job in JOBS), set()
    for job in jobs if isinstance(jobs, list) else []:
        name = job.get("job_name") if isinstance(job, dict) else None
        if not isinstance(name, str) or name not in found or id(job) in read:
            continue
        read.add(id(job))
        groups = job.get("static_configs")
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict) or id(group) in read or not isinstance(group.get("labels"), dict) \
                    or not isinstance(group.get("targets"), list):
                continue
            read.add(id(group))
            host = _label(group["labels"].get("instance"))
            node = _label(group["labels"].get("node")) if "node" in group["labels"] else host and node_name(host)
            addresses = [_target_address(target) for target in group["targets"][:_TARGETS_READ]]
            addresses = [address for address in addresses if address]
            if host and node and addresses and host not in hosts[name]:
                hosts[name].add(host)
                found[name].append({"host": host, "node": node, "address": addresses[0]})
    return found


def kept_targets(running, inventory, remove=None):
    """{job: [target]} ({host, node, address}, as targets gives them) of the jobs in JOBS of the running
    prometheus.yml whose instance is a host the inventory does not hold, unless remove names the host or its
    Slurm node name; each job in the running file's order.

    running: the running prometheus.yml's text (None, empty or garbage: nothing is kept); inventory: every host
    of this run's inventory (groups['all']); remove: a list of host or Slurm node names (prometheus_remove_hosts
    and slurm_remove_nodes). Raises MonitoringError for an inventory or remove list of another type.
    """
    return _kept(running_targets(running), inventory, remove)


def _kept(found, inventory, remove):
    if isinstance(inventory, (str, bytes, dict)) or not isinstance(inventory, (list, tuple, set, frozenset)):
        raise MonitoringError("the inventory must be a list of host names (groups['all']), not %s" % shown(inventory))
    if remove is None:
        remove = []
    if not isinstance(remove, (list, tuple)) or not all(isinstance(name, str) for name in remove):
        raise MonitoringError("prometheus_remove_hosts (with slurm_remove_nodes) must be a list of host or Slurm node "
                              "names, not %s" % shown(remove))
    held = set(name for name in inventory if isinstance(name, str))
    gone = set(remove)
    return dict((job, [target for target in found[job] if target["host"] not in held
                       and target["host"] not in gone and target["node"] not in gone]) for job in JOBS)


def prometheus_config(plan, settings):
    """prometheus.yml as a dict.

    plan: targets(); settings: scrape_interval, scrape_timeout,
    evaluation_interval, external_labels, rule_files, ports {job: port},
    extra_scrape_configs (appended as given).
    """
    ports = settings["ports"]
    scrape_configs = []
    for job in ("prometheus", "alertmanager") + JOBS:
        members = plan["targets"].get(job) or []
        if not members:
            continue
        config = {"job_name": job, "static_configs": [
            {"targets": [_hostport(target["address"], int(ports[job]))],
             "labels": {"instance": target["host"], "node": target["node"]}} for target in members]}
        if job == "slurm":
            # Its per-node series carry their own node label: keep it.
            config["honor_labels"] = True
        scrape_configs.append(config)
    native = native_scrape_config(plan["targets"].get("slurm") or [], settings.get("slurm_conf"),
                                  settings.get("slurmctld_port"))
    if native:
        scrape_configs.append(native)
    scrape_configs.extend(settings.get("extra_scrape_configs") or [])
    config = {
        "global": {"scrape_interval": settings["scrape_interval"], "scrape_timeout": settings["scrape_timeout"],
                   "evaluation_interval": settings["evaluation_interval"]},
        "rule_files": list(settings.get("rule_files") or []),
        "scrape_configs": scrape_configs,
    }
    if settings.get("external_labels"):
        config["global"]["external_labels"] = dict(settings["external_labels"])
    managers = plan["targets"].get("alertmanager") or []
    if managers:
        config["alerting"] = {"alertmanagers": [{"static_configs": [
            {"targets": [_hostport(target["address"], int(ports["alertmanager"])) for target in managers]}]}]}
    return config


def native_scrape_config(controllers, slurm_conf, port):
    """The scrape job of slurmctld's native metrics, or None when the controllers' slurm.conf (its text) has them
    off (no MetricsType=metrics/openmetrics: a release before 25.11, or slurm_native_metrics: false).

    Every controller is a target for each endpoint (NATIVE_ENDPOINTS), labelled with the endpoint. A standby
    controller answers with HTTP 303 to the first controller; the redirect is not followed, so each series comes
    from the controller in control only (a standby's targets are down, which the exporter-down alert leaves out
    for this job; GpuopsSlurmNativeMetricsDown fires when no controller serves an endpoint). The node label of the
    per-node series is slurmctld's own (honor_labels)."""
    if not conf_has_native_metrics(slurm_conf) or not controllers:
        return None
    port = int(port or 6817)
    return {"job_name": "slurmctld", "honor_labels": True, "follow_redirects": False, "static_configs": [
        {"targets": [_hostport(target["address"], port)],
         "labels": {"instance": target["host"], "node": target["node"], "endpoint": endpoint,
                    "__metrics_path__": "/metrics/%s" % endpoint}}
        for target in controllers for endpoint in NATIVE_ENDPOINTS]}


def alertmanager_config(settings):
    """alertmanager.yml as a dict: the route (group by alert and node), receivers and inhibitions from settings."""
    receivers = list(settings.get("receivers") or [{"name": "default"}])
    route = {"receiver": receivers[0].get("name", "default"), "group_by": ["alertname", "node"],
             "group_wait": "10s", "group_interval": "1m", "repeat_interval": "4h"}
    route.update(settings.get("route") or {})
    config = {"route": route, "receivers": receivers}
    if settings.get("inhibit_rules"):
        config["inhibit_rules"] = list(settings["inhibit_rules"])
    return config


# The exporters' port variables, by scrape job.
_PORT_VARIABLES = {"node": "node_exporter", "gpu": "gpu_exporter", "slurm": "slurm_exporter"}
# What a setting holds when it is set (None is "not set"): (key, variable, type, what to give).
_SHAPES = (
    ("external_labels", "prometheus_external_labels", dict, "a mapping of label name to value (cluster: lab)"),
    ("rule_files", "prometheus_rule_files", list, "a list of rule file paths"),
    ("extra_scrape_configs", "prometheus_extra_scrape_configs", list,
     "a list of Prometheus scrape configs (mappings with a job_name)"),
    ("route", "prometheus_alertmanager_route", dict, "a mapping of Alertmanager route settings (repeat_interval: 4h)"),
    ("inhibit_rules", "prometheus_alertmanager_inhibit_rules", list, "a list of Alertmanager inhibit rules"),
    ("remove_hosts", "prometheus_remove_hosts", list,
     "a list of inventory host or Slurm node names to take out of prometheus.yml ([gpu17])"),
)


def settings_errors(settings):
    """Messages naming the variable and the fix, for the monitoring settings (any value of any type; never raises)."""
    if not isinstance(settings, dict):
        return ["the monitoring settings must be a mapping of the prometheus_ settings, not %s" % shown(settings)]
    errors = []
    seconds = {}
    for key in ("scrape_interval", "scrape_timeout", "evaluation_interval", "retention_time"):
        value = settings.get(key)
        if value is None:
            continue
        seconds[key] = duration_seconds(value)
        if seconds[key] is None:
            errors.append("prometheus_%s: %s is not a Prometheus duration: write it like 15s, 1m or 30d"
                          % (key, shown(value)))
    ports = settings.get("ports")
    if ports is not None and not isinstance(ports, dict):
        errors.append("gpuops_monitoring_*_port: the ports must be a mapping of service to port, not %s" % shown(ports))
        ports = {}
    good = []
    for key in ("prometheus", "alertmanager") + JOBS if ports else ():
        if key not in ports:
            errors.append("gpuops_monitoring_%s_port is not set: give a number from 1 to 65535"
                          % _PORT_VARIABLES.get(key, key))
    for key in sorted(ports or {}, key=_sort_key):
        port = ports[key]
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            errors.append("gpuops_monitoring_%s_port: %s is not a TCP port: give a number from 1 to 65535"
                          % (_PORT_VARIABLES.get(key, key) if isinstance(key, str) else shown(key), shown(port)))
        else:
            good.append(port)
    if len(good) != len(set(good)):
        errors.append("gpuops_monitoring_*_port: two services have the same port (%s): give each its own"
                      % ", ".join(str(port) for port in sorted(good)))
    if seconds.get("scrape_interval") and seconds.get("scrape_timeout") \
            and seconds["scrape_timeout"] > seconds["scrape_interval"]:
        errors.append("prometheus_scrape_timeout: %s is longer than prometheus_scrape_interval %s: "
                      "make it shorter" % (settings["scrape_timeout"], settings["scrape_interval"]))
    for key, variable, kind, what in _SHAPES:
        value = settings.get(key)
        if value is not None and not isinstance(value, kind):
            errors.append("%s must be %s, not %s" % (variable, what, shown(value)))
    for index, config in enumerate(settings.get("extra_scrape_configs") if isinstance(
            settings.get("extra_scrape_configs"), list) else []):
        if not isinstance(config, dict) or not isinstance(config.get("job_name"), str) or not config["job_name"]:
            errors.append("prometheus_extra_scrape_configs[%d]: give a mapping with a job_name (and its "
                          "static_configs), not %s" % (index, shown(config)))
    remove = settings.get("remove_hosts")
    for index, name in enumerate(remove if isinstance(remove, list) else []):
        if not isinstance(name, str) or not name:
            errors.append("prometheus_remove_hosts[%d]: %s is not a host name: give an inventory host or Slurm node "
                          "name (gpu17)" % (index, shown(name)))
    errors.extend(_receiver_errors(settings.get("receivers")))
    return errors


def _receiver_errors(receivers):
    if receivers is None:
        return []
    if not isinstance(receivers, list) or not receivers:
        return ["prometheus_alertmanager_receivers: give a list of Alertmanager receivers, "
                "at least one (a name alone is a receiver that drops alerts)"]
    errors, names = [], []
    for index, receiver in enumerate(receivers):
        name = receiver.get("name") if isinstance(receiver, dict) else None
        if not isinstance(receiver, dict) or name is None or name == "":
            errors.append("prometheus_alertmanager_receivers[%d]: each receiver needs a name" % index)
        elif not isinstance(name, str):
            errors.append("prometheus_alertmanager_receivers[%d]: name %s is not a string: give each receiver a "
                          "name such as ops" % (index, shown(name)))
        else:
            names.append(name)
    twice = sorted(set(name for name in names if names.count(name) > 1))
    if twice:
        # The repeated names only, each shown short: a message stays readable whatever the list holds.
        more = " and %d more" % (len(twice) - 5) if len(twice) > 5 else ""
        errors.append("prometheus_alertmanager_receivers: receiver names must be unique; given more than once: %s%s"
                      % (", ".join(shown(name) for name in twice[:5]), more))
    return errors


def _sort_key(key):
    return (0, key) if isinstance(key, str) else (1, shown(key))


# Prometheus' duration (model.ParseDuration): units from years to milliseconds, each at most once, largest first;
# a number of at most 12 digits each (one pattern of optional parts in a row: no repetition inside repetition).
_DURATION_RE = re.compile(r"(?=[0-9])(?:([0-9]{1,12})y)?(?:([0-9]{1,12})w)?(?:([0-9]{1,12})d)?(?:([0-9]{1,12})h)?"
                          r"(?:([0-9]{1,12})m)?(?:([0-9]{1,12})s)?(?:([0-9]{1,12})ms)?\Z")
# Prometheus keeps a duration in int64 milliseconds.
_MAX_SECONDS = (2 ** 63 - 1) // 1000


def duration_seconds(value):
    """Seconds of a Prometheus duration such as 1m30s, or None for anything else (of any type)."""
    if not isinstance(value, str):
        return None
    match = _DURATION_RE.match(value)
    if not match:
        return None
    factors = (31536000, 604800, 86400, 3600, 60, 1, 0.001)
    total = sum(int(number) * factor for number, factor in zip(match.groups(), factors) if number)
    return total if total <= _MAX_SECONDS else None
