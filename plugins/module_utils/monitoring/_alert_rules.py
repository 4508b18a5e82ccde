# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus alert rules of the monitoring stack (issue 16), from the prometheus role's settings.

Pure functions: ``alert_rules(settings)`` is the rules file as a dict
({"groups": [...]}), ``alert_settings_errors(settings)`` the messages (naming
the ``prometheus_alert_`` variable and the fix) for settings it cannot use.
The settings are the role's ``prometheus_alert_*`` variables without the
prefix; a key left out takes its default (DEFAULTS), and ``for`` and
``severity`` give only the rules they change. The metric names are the
exporters' contract (job, instance and node labels on every series).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import math
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown


class AlertRulesError(Exception):
    """Settings the alert rules cannot be built from."""


# (key, alert name, group, default for, default severity), in the order of the rules file.
RULES = (
    ("node_down", "GpuopsNodeDown", "nodes", "2m", "critical"),
    ("slurm_node_down", "GpuopsSlurmNodeNotResponding", "nodes", "2m", "critical"),
    ("node_drained_by_health", "GpuopsNodeDrainedByHealthCheck", "nodes", "0s", "warning"),
    ("node_drained", "GpuopsNodeDrained", "nodes", "0s", "info"),
    ("exporter_down", "GpuopsExporterDown", "nodes", "2m", "warning"),
    ("gpu_count_below_gres", "GpuopsGpuCountBelowGres", "gpus", "0s", "critical"),
    ("nvidia_smi_failing", "GpuopsNvidiaSmiFailing", "gpus", "1m", "critical"),
    ("gpu_xid", "GpuopsGpuXidError", "gpus", "0s", "warning"),
    ("gpu_ecc_uncorrectable", "GpuopsGpuUncorrectableEccErrors", "gpus", "0s", "critical"),
    ("gpu_memory_reset_pending", "GpuopsGpuMemoryRepairPending", "gpus", "0s", "warning"),
    ("gpu_row_remap_failure", "GpuopsGpuRowRemapFailure", "gpus", "0s", "critical"),
    ("gpu_too_hot", "GpuopsGpuTooHot", "gpus", "5m", "warning"),
    ("rdma_port_down", "GpuopsRdmaPortDown", "gpus", "2m", "warning"),
    ("gpu_check_failed", "GpuopsGpuCheckFailed", "gpus", "0s", "warning"),
    ("slurmctld_down", "GpuopsSlurmctldDown", "slurm", "1m", "critical"),
    ("slurm_backup_in_control", "GpuopsSlurmBackupInControl", "slurm", "0s", "warning"),
    ("slurmdbd_down", "GpuopsSlurmdbdDown", "slurm", "2m", "warning"),
    ("slurm_partition_nodes_down", "GpuopsSlurmPartitionNodesDown", "slurm", "2m", "warning"),
    ("slurm_native_metrics_down", "GpuopsSlurmNativeMetricsDown", "slurm", "2m", "warning"),
    ("disk_almost_full", "GpuopsDiskAlmostFull", "storage", "10m", "warning"),
    ("shared_almost_full", "GpuopsSharedStorageAlmostFull", "storage", "10m", "critical"),
)
GROUPS = ("nodes", "gpus", "slurm", "storage")
RULE_KEYS = tuple(rule[0] for rule in RULES)

DEFAULTS = {
    "for": dict((rule[0], rule[3]) for rule in RULES),
    "severity": dict((rule[0], rule[4]) for rule in RULES),
    "gpu_temperature_c": 85,
    "disk_free_ratio": 0.10,
    "shared_mountpoint": "/shared",
    "shared_free_ratio": 0.10,
    "extra_labels": {},
}
TEMPERATURE_RANGE = (40, 110)
# Degrees below the GPU's own slowdown temperature at which it counts as too hot. The exporter's
# gpuops_gpu_temp_slowdown_margin_celsius gives that distance for both temperature layouts: from the
# absolute slowdown temperature where the driver prints one, from the T.Limit readings where it prints
# only those (driver 580 on an H100), so the rule reads the margin, not the slowdown temperature.
SLOWDOWN_MARGIN_C = 5
# Filesystems that are never full in a way that matters (RAM, container layers).
SKIP_FSTYPES = ("tmpfs", "overlay")

# Prometheus' duration: units from years to milliseconds, each at most once, largest first; "0" alone too.
_DURATION_RE = re.compile(r"^(?:0|(?=[0-9])(?:[0-9]+y)?(?:[0-9]+w)?(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?"
                          r"(?:[0-9]+s)?(?:[0-9]+ms)?)$")
_LABEL_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
_SEVERITY_RE = re.compile(r"^[A-Za-z0-9_-]+\Z")
_RESERVED_LABELS = ("severity", "alertname")


def _is_number(value):
    """An int or float a rule can print: not a bool, finite (YAML's .inf and .nan are floats), within a float."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return not (math.isinf(value) or math.isnan(value))
    except OverflowError:  # an int beyond what a float holds
        return False


def _num(value):
    """A number as PromQL writes it: 85, 0.1."""
    if float(value) == int(value):
        return "%d" % int(value)
    return repr(float(value))


def _quote(text):
    """A PromQL string literal."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def _key(key):
    """A mapping key as a message names it (text as is, anything else as shown)."""
    return key if isinstance(key, str) else shown(key)


def alert_settings_errors(settings):
    """Messages (naming the prometheus_alert_ variable and the fix) for settings the rules cannot use."""
    if not isinstance(settings, dict):
        return ["the alert settings must be a mapping of the prometheus_alert_ variables without the prefix, not %s."
                % shown(settings)]
    errors = []
    unknown = sorted(_key(key) for key in settings if key not in DEFAULTS)
    if unknown:
        errors.append("unknown alert setting(s) %s: the settings are %s (variables prometheus_alert_<setting>)."
                      % (", ".join(unknown), ", ".join(sorted(DEFAULTS))))
    durations = settings.get("for", {})
    if not isinstance(durations, dict):
        errors.append("prometheus_alert_for must be a mapping of rule to duration (gpu_too_hot: 5m), not %s."
                      % shown(durations))
        durations = {}
    wrong = sorted(_key(key) for key in durations if key not in RULE_KEYS)
    if wrong:
        errors.append("prometheus_alert_for names unknown rule(s) %s: use %s." % (", ".join(wrong), ", ".join(RULE_KEYS)))
    for key in RULE_KEYS:
        if key in durations and not (isinstance(durations[key], str) and _DURATION_RE.match(durations[key])):
            errors.append("prometheus_alert_for.%s is %s: give a Prometheus duration such as 0s, 30s, 5m or 1h30m."
                          % (key, shown(durations[key])))
    severities = settings.get("severity", {})
    if not isinstance(severities, dict):
        errors.append("prometheus_alert_severity must be a mapping of rule to severity (gpu_too_hot: critical), not %s."
                      % shown(severities))
        severities = {}
    wrong = sorted(_key(key) for key in severities if key not in RULE_KEYS)
    if wrong:
        errors.append("prometheus_alert_severity names unknown rule(s) %s: use %s."
                      % (", ".join(wrong), ", ".join(RULE_KEYS)))
    for key in RULE_KEYS:
        if key in severities and not (isinstance(severities[key], str) and _SEVERITY_RE.match(severities[key])):
            errors.append("prometheus_alert_severity.%s is %s: give a word such as critical, warning or info."
                          % (key, shown(severities[key])))
    low, high = TEMPERATURE_RANGE
    temperature = settings.get("gpu_temperature_c", DEFAULTS["gpu_temperature_c"])
    if not _is_number(temperature) or not low <= temperature <= high:
        errors.append("prometheus_alert_gpu_temperature_c is %s: give degrees Celsius from %d to %d."
                      % (shown(temperature), low, high))
    for key in ("disk_free_ratio", "shared_free_ratio"):
        ratio = settings.get(key, DEFAULTS[key])
        if not _is_number(ratio) or not 0 < ratio < 1:
            errors.append("prometheus_alert_%s is %s: give the free fraction below which the alert fires, "
                          "between 0 and 1 (0.1 for 10%%)." % (key, shown(ratio)))
    mountpoint = settings.get("shared_mountpoint", DEFAULTS["shared_mountpoint"])
    if not isinstance(mountpoint, str) or not mountpoint.startswith("/") or "\n" in mountpoint:
        errors.append("prometheus_alert_shared_mountpoint is %s: give the absolute path the shared storage is "
                      "mounted at (/shared)." % shown(mountpoint))
    labels = settings.get("extra_labels", {})
    if not isinstance(labels, dict):
        errors.append("prometheus_alert_extra_labels must be a mapping of label name to value (cluster: gpu-a), "
                      "not %s." % shown(labels))
        labels = {}
    for name in sorted(labels, key=_key):
        value = labels[name]
        if not isinstance(name, str) or not _LABEL_NAME_RE.match(name) or name.startswith("__"):
            errors.append("prometheus_alert_extra_labels has the label name %s: give letters, digits and _ "
                          "(not starting with a digit or __)." % shown(name))
        elif name in _RESERVED_LABELS:
            errors.append("prometheus_alert_extra_labels sets %s: %s" % (
                name, "set prometheus_alert_severity per rule instead." if name == "severity"
                else "Prometheus sets alertname itself; remove it."))
        elif not isinstance(value, str) and not _is_number(value):
            errors.append("prometheus_alert_extra_labels.%s is %s: give a string." % (name, shown(value)))
    return errors


def _settings(settings):
    errors = alert_settings_errors(settings)
    if errors:
        raise AlertRulesError(" ".join(errors))
    merged = copy.deepcopy(DEFAULTS)
    for key, value in settings.items():
        if key in ("for", "severity"):
            merged[key].update(value)
        else:
            merged[key] = value
    merged["extra_labels"] = dict((name, value if isinstance(value, str) else _num(value))
                                  for name, value in merged["extra_labels"].items())
    return merged


def _gpu(text):
    """'GPU 3 (NVIDIA H100 80GB HBM3) on gpu01' and the job that holds it, from the per-GPU labels."""
    return ("GPU {{ $labels.gpu }} ({{ $labels.model }}, {{ $labels.uuid }}) on {{ $labels.node }}" + text
            + "{{ if $labels.job_id }} (job {{ $labels.job_id }} of {{ $labels.user }}, account "
            "{{ $labels.account }}){{ end }}")


def _exprs(s):
    """rule key -> (expr, summary, description)."""
    fs_skip = "|".join(SKIP_FSTYPES)
    shared = _quote(s["shared_mountpoint"])
    disk = ('node_filesystem_avail_bytes{fstype!~"%s",mountpoint!=%s}\n'
            '  / node_filesystem_size_bytes{fstype!~"%s",mountpoint!=%s}\n'
            '  < %s\nand node_filesystem_readonly == 0' % (fs_skip, shared, fs_skip, shared, _num(s["disk_free_ratio"])))
    shared_expr = ('min by (mountpoint) (\n'
                   '  (node_filesystem_avail_bytes{fstype!~"%s",mountpoint=%s}\n'
                   '    / node_filesystem_size_bytes{fstype!~"%s",mountpoint=%s})\n'
                   '  and node_filesystem_readonly == 0\n) < %s'
                   % (fs_skip, shared, fs_skip, shared, _num(s["shared_free_ratio"])))
    # GPUs per node in Slurm: slurmctld's native series (Slurm 25.11 and later), else the Slurm exporter's.
    slurm_gpus = '(max by (node) (slurm_node_gpus) or on (node) gpuops_slurm_node_gpus{kind="total"})'
    listed = ('{{ with printf "count(gpuops_gpu_info{node=%q})" $labels.node | query }}'
              '{{ . | first | value }}{{ else }}0{{ end }}')
    return {
        "node_down": (
            'up{job="node"} == 0',
            "Node {{ $labels.node }} is down",
            "prometheus-node-exporter on {{ $labels.instance }} (node {{ $labels.node }}) does not answer: the host "
            "is down, unreachable or the exporter stopped."),
        "slurm_node_down": (
            'gpuops_slurm_node_state{responding="0"} == 1\nor gpuops_slurm_node_state{state=~"down.*"} == 1',
            "Slurm node {{ $labels.node }} is {{ $labels.state }}"
            "{{ if eq $labels.responding \"0\" }} and not responding{{ end }}",
            "slurmctld reports node {{ $labels.node }} as {{ $labels.state }}"
            "{{ if eq $labels.responding \"0\" }}, not responding (slurmd unreachable){{ end }}"
            "{{ if $labels.reason }}, reason: {{ $labels.reason }}{{ end }}. "
            "Check slurmd on the node (systemctl status slurmd), then scontrol update nodename={{ $labels.node }} "
            "state=resume."),
        "node_drained_by_health": (
            'gpuops_slurm_node_state{state=~"drain.*",reason=~"gpuops-health:.*"} == 1',
            "gpuops-health drained {{ $labels.node }}",
            "Slurm node {{ $labels.node }} is {{ $labels.state }} by the health check: {{ $labels.reason }}. "
            "Fix the cause; gpuops-health resumes the node when every check passes again "
            "(gpuops-health show on the node)."),
        "node_drained": (
            'gpuops_slurm_node_state{state=~"drain.*",reason!~"gpuops-health:.*"} == 1',
            "{{ $labels.node }} is {{ $labels.state }}: {{ $labels.reason }}",
            "Slurm node {{ $labels.node }} is {{ $labels.state }} by someone or something other than the health "
            "check{{ if $labels.reason }} (reason: {{ $labels.reason }}){{ end }}. It takes no new jobs until "
            "scontrol update nodename={{ $labels.node }} state=resume."),
        "exporter_down": (
            'up{job!~"node|slurmctld"} == 0',
            "The {{ $labels.job }} target on {{ $labels.instance }} is down",
            "Prometheus cannot scrape the {{ $labels.job }} target on {{ $labels.instance }} (node {{ $labels.node }}): "
            "its metrics and the alerts that need them are missing."),
        "gpu_count_below_gres": (
            slurm_gpus + '\n  > on (node) group_left () count by (node) (gpuops_gpu_info)\n'
            'or (\n  ' + slurm_gpus + ' > 0\n  and on (node) gpuops_gpu_exporter_up == 1\n'
            '  unless on (node) gpuops_gpu_info\n)',
            "{{ $labels.node }} has fewer GPUs than its Slurm Gres",
            "Slurm's Gres gives {{ $labels.node }} {{ $value }} GPUs; nvidia-smi lists " + listed + ". A GPU fell "
            "off the bus or lost its driver: check nvidia-smi and the kernel log (XID 79) on the node."),
        "nvidia_smi_failing": (
            'gpuops_gpu_exporter_up == 0',
            "nvidia-smi fails on {{ $labels.node }}",
            "The GPU exporter on {{ $labels.node }} gets no usable answer from nvidia-smi: {{ $labels.reason }}. "
            "The node's GPU metrics are missing; check the driver (nvidia-smi, lsmod | grep nvidia)."),
        "gpu_xid": (
            'increase(gpuops_gpu_xid_errors_total[10m]) > 0\n'
            'or (\n  gpuops_gpu_xid_errors_total > 0\n'
            '  unless on (node, pci_bus_id, xid) gpuops_gpu_xid_errors_total offset 10m\n'
            '  and on (node) up{job="gpu"} offset 10m == 1\n)',
            "XID {{ $labels.xid }} on {{ $labels.node }}",
            "The kernel logged NVIDIA XID {{ $labels.xid }} for "
            "{{ if $labels.gpu }}GPU {{ $labels.gpu }}{{ else }}a GPU nvidia-smi does not list{{ end }} "
            "(PCI {{ $labels.pci_bus_id }}) on {{ $labels.node }} in the last 10 minutes. See NVIDIA's XID "
            "catalogue; gpuops-health drains the node for the XIDs that need a reset."),
        "gpu_ecc_uncorrectable": (
            'gpuops_gpu_ecc_uncorrectable_errors{scope="volatile"} > 0',
            "Uncorrectable ECC errors on GPU {{ $labels.gpu }} of {{ $labels.node }}",
            _gpu(" has {{ $value }} uncorrectable ECC error(s) since the driver loaded") + ". Jobs on it may "
            "have computed garbage; drain the node and reset the GPU."),
        "gpu_memory_reset_pending": (
            'gpuops_gpu_retired_pages_pending == 1\nor gpuops_gpu_remap_pending == 1',
            "GPU {{ $labels.gpu }} of {{ $labels.node }} needs a reset to repair its memory",
            _gpu(" has a page retirement or row remap pending") + ": it takes effect at the next GPU reset or "
            "reboot. Drain the node and reset the GPU."),
        "gpu_row_remap_failure": (
            'gpuops_gpu_remap_failure == 1',
            "GPU {{ $labels.gpu }} of {{ $labels.node }} failed to remap a memory row",
            _gpu(" could not remap a failing memory row") + ": its memory cannot be repaired. Drain the node "
            "and have the GPU replaced."),
        "gpu_too_hot": (
            'gpuops_gpu_temperature_celsius > %s\nor gpuops_gpu_temperature_celsius\n'
            '  and on (node, gpu) (gpuops_gpu_temp_slowdown_margin_celsius <= %d)'
            % (_num(s["gpu_temperature_c"]), SLOWDOWN_MARGIN_C),
            "GPU {{ $labels.gpu }} of {{ $labels.node }} is at {{ $value }} C",
            _gpu(" is at {{ $value }} C") + ", above %s C or within %d C of its slowdown temperature: it will "
            "throttle. Check the fans and the airflow." % (_num(s["gpu_temperature_c"]), SLOWDOWN_MARGIN_C)),
        "rdma_port_down": (
            'gpuops_rdma_port_active == 0',
            "RDMA port {{ $labels.device }}:{{ $labels.port }} of {{ $labels.node }} is down",
            "RDMA port {{ $labels.device }} port {{ $labels.port }} that NCCL uses on {{ $labels.node }} is not "
            "ACTIVE: multi-node jobs there fall back to TCP or fail. Check the cable and the switch "
            "(ibstat {{ $labels.device }})."),
        "gpu_check_failed": (
            'gpuops_gpu_check_passed == 0',
            "Active GPU check {{ $labels.check }} failed on {{ $labels.node }}",
            "The last active run on {{ $labels.node }} failed {{ $labels.check }} (gpuops-health active; the "
            "measured values are gpuops_gpu_check_value beside gpuops_gpu_check_expected). gpuops-health drains the "
            "node with the check, the value and the expectation, and resumes it once every check passes again "
            "(systemctl start gpuops-health-active on the node checks it at once)."),
        "slurmctld_down": (
            'gpuops_slurm_controller_up == 0\n'
            'or (up{job="slurm"} == 1 unless on (job, instance) gpuops_slurm_controller_up)',
            "slurmctld {{ if $labels.controller }}{{ $labels.controller }} {{ end }}is down",
            "{{ if $labels.controller }}The {{ $labels.role }} slurmctld on {{ $labels.controller }} does not "
            "answer scontrol ping{{ else }}The Slurm exporter on {{ $labels.instance }} reports no controller "
            "(scontrol ping gives nothing){{ end }}: jobs cannot be submitted or scheduled. "
            "Check systemctl status slurmctld and its log."),
        "slurm_backup_in_control": (
            'gpuops_slurm_controller_in_control{role!="primary"} == 1',
            "The backup slurmctld {{ $labels.controller }} is in control",
            "The {{ $labels.role }} slurmctld on {{ $labels.controller }} has taken over: the controllers before it "
            "in SlurmctldHost order do not answer. Jobs run and are scheduled, with no backup left behind this one. "
            "Bring the primary back (systemctl status slurmctld there); it takes control again once it answers."),
        "slurmdbd_down": (
            'gpuops_slurm_dbd_up == 0',
            "slurmdbd does not answer",
            "sacctmgr on {{ $labels.instance }} gets no answer from slurmdbd: accounting records are queued by "
            "slurmctld and sacct/sshare are stale. Check systemctl status slurmdbd and its database."),
        "slurm_partition_nodes_down": (
            '(\n  max by (partition) (slurm_partition_nodes_down)\n'
            '  or on (partition) sum by (partition) (gpuops_slurm_partition_nodes{state=~"down.*"})\n) > 0',
            "{{ $value }} node(s) of partition {{ $labels.partition }} are down",
            "slurmctld counts {{ $value }} node(s) of partition {{ $labels.partition }} in the DOWN state: the "
            "partition has that much less capacity, and jobs that need it wait. GpuopsSlurmNodeNotResponding names "
            "each node and its reason (sinfo -R)."),
        "slurm_native_metrics_down": (
            'max by (endpoint) (up{job="slurmctld"}) == 0',
            "No slurmctld serves /metrics/{{ $labels.endpoint }}",
            "Prometheus gets /metrics/{{ $labels.endpoint }} from no controller (a standby answers with a redirect "
            "to the controller in control, which is not followed): the Slurm series of the dashboards and alerts "
            "that read it are missing. Check slurmctld (systemctl status slurmctld) and MetricsType in slurm.conf."),
        "disk_almost_full": (
            disk,
            "{{ $labels.mountpoint }} on {{ $labels.node }} is almost full",
            "{{ $labels.mountpoint }} ({{ $labels.device }}, {{ $labels.fstype }}) on {{ $labels.node }} has "
            "{{ $value | humanizePercentage }} free, below %s." % (_percent(s["disk_free_ratio"]),)),
        "shared_almost_full": (
            shared_expr,
            "Shared storage {{ $labels.mountpoint }} is almost full",
            "{{ $labels.mountpoint }} has {{ $value | humanizePercentage }} free, below %s: jobs writing "
            "checkpoints and results there will fail." % (_percent(s["shared_free_ratio"]),)),
    }


def _percent(ratio):
    value = ratio * 100
    return ("%d%%" % value) if value == int(value) else ("%s%%" % ("%.2f" % value).rstrip("0").rstrip("."))


def alert_rules(settings):
    """The Prometheus rules file ({"groups": [...]}) from the alert settings (see the module doc)."""
    s = _settings(settings)
    exprs = _exprs(s)
    groups = dict((name, []) for name in GROUPS)
    for key, name, group, _for, _severity in RULES:
        expr, summary, description = exprs[key]
        labels = dict(s["extra_labels"])
        labels["severity"] = s["severity"][key]
        groups[group].append({
            "alert": name,
            "expr": expr,
            "for": s["for"][key],
            "labels": labels,
            "annotations": {"summary": summary, "description": description},
        })
    return {"groups": [{"name": "gpuops-" + name, "rules": groups[name]} for name in GROUPS]}
