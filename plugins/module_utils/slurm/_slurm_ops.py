# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Day-2 Slurm operations: upgrade checks and "did the cluster survive this change".

Pure functions, no I/O, for the configuration change and rolling upgrade
playbooks. They read Slurm versions (upstream, Debian and RPM spellings),
``apt-cache policy``, ``rpm -q``/``dnf repoquery``, ``squeue``, ``sacct`` and
``scontrol show node`` output, decide whether an upgrade is one that Slurm
supports, and compare two snapshots of the cluster. Input they cannot read
raises SlurmOpsError with a one-line reason; never another exception type.

Slurm behaviour followed:

- Versions are ``YY.MM.micro``; a major release is ``YY.MM``. The major
  releases are 17.02, 17.11, 18.08, 19.05, 20.02, 20.11, 21.08, 22.05, 23.02,
  23.11, 24.05 and 24.11 (9-month cycle until 23.11), then a 6-month cycle
  with YY.05 and YY.11 every year from 24.05 on.
- Upgrades (https://slurm.schedmd.com/upgrades.html and each RELEASE_NOTES):
  a release accepts state files and RPCs of the previous two major releases;
  from 24.11 on, of the previous three ("Slurm can be upgraded from version
  23.02, 23.11 or 24.05 to version 24.11"). Downgrades are not supported.
- ``squeue --format=%A|%T|%N`` prints the job id, the long state name and a
  hostlist expression of the allocated nodes (empty while pending).
- ``sacct --parsable2`` separates fields with ``|``; its State of a cancelled
  job reads ``CANCELLED by UID``.
- ``apt-cache policy`` prints ``Installed: (none)`` for a package that is not
  installed and ``N: Unable to locate package X`` for one it does not know;
  run it with LC_ALL=C, the labels are translated otherwise.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress, expand
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_conf import version_tuple
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import (
    MAX_DIGITS, TEXT_TYPES, as_text, clip, guarded, number_key)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import ValidateError, parse_scontrol_nodes

# Text, and the str of Python 2 (bytes, decoded by _as_text before any use).
_TEXT_TYPES = TEXT_TYPES


class SlurmOpsError(Exception):
    """A version, command output or snapshot that cannot be used."""


_clip = clip


def _as_text(data, what):
    """data as text (bytes that are not UTF-8 read as U+FFFD); SlurmOpsError for None, numbers and the like."""
    return as_text(data, what, SlurmOpsError)


def _one_line(text):
    """text with each run of white space (newlines included) as one space."""
    return " ".join(text.split())


def _natural_key(text):
    """'gpu2' before 'gpu10', '12_3' before '12_10': digit runs compare as numbers (of any length)."""
    key = []
    for part in re.findall(r"[0-9]+|[^0-9]+", text):
        key.append((0, number_key(part), part) if part[0] in "0123456789" else (1, ("", ""), part))
    return tuple(key)


def _labels(labels, limit=5):
    """'a, b, c' for sorted labels; beyond limit: 'a, b, c, d, e and 3 more'."""
    labels = sorted((_one_line(label) for label in labels), key=_natural_key)
    if len(labels) <= limit:
        return ", ".join(labels)
    return "%s and %d more" % (", ".join(labels[:limit]), len(labels) - limit)


def _plural(count, word):
    return "%d %s%s" % (count, word, "" if count == 1 else "s")


# --- versions and releases -----------------------------------------------------

_VERSION_EXAMPLES = "expected something like '24.11.5' or '22.05.8-4+deb12u3'"


def parse_slurm_version(text):
    """(major, minor, micro or None) of a Slurm version.

    Reads upstream versions (``22.05.8``, ``22.05``), Debian package versions
    (``22.05.8-4+deb12u3``, ``1:22.05.8-4``), RPM EVRs (``0:23.11.4-1.el9``)
    and ``sinfo --version`` output (``slurm 24.11.5``, ``slurm-wlm 22.05.8``).
    """
    if isinstance(text, bool) or isinstance(text, (int, float)):
        raise SlurmOpsError("cannot read a Slurm version from the %s %r: quote it in YAML; %s"
                            % ("boolean" if isinstance(text, bool) else "number", text, _VERSION_EXAMPLES))
    if not isinstance(text, _TEXT_TYPES):
        raise SlurmOpsError("a Slurm version must be a string, got %s; %s" % (type(text).__name__, _VERSION_EXAMPLES))
    parts = version_tuple(text)
    if parts is None:
        raise SlurmOpsError("cannot read a Slurm version from '%s'; %s" % (_clip(text, 60), _VERSION_EXAMPLES))
    return parts


def _release_text(major_minor):
    return "%d.%02d" % tuple(major_minor)


def release_name(version):
    """'22.05' for any version parse_slurm_version reads ('22.05.8-4+deb12u3', 'slurm 22.05.8')."""
    return _release_text(parse_slurm_version(version)[:2])


# The releases before the 6-month cycle settled; from FIRST_YEARLY_MAJOR on,
# every year has YY.05 and YY.11.
KNOWN_RELEASES = ((17, 2), (17, 11), (18, 8), (19, 5), (20, 2), (20, 11), (21, 8), (22, 5),
                  (23, 2), (23, 11), (24, 5), (24, 11), (25, 5), (25, 11))
FIRST_YEARLY_MAJOR = 26
# Slurm versions are YY.MM: a two-digit year.
_LAST_MAJOR = 99
# The first release that accepts state from three older releases instead of two.
_WIDER_WINDOW_FROM = (24, 11)


def _release_at(index):
    """(major, minor) of the release at position index of the release order."""
    if index < len(KNOWN_RELEASES):
        return KNOWN_RELEASES[index]
    past = index - len(KNOWN_RELEASES)
    return FIRST_YEARLY_MAJOR + past // 2, (5, 11)[past % 2]


def _index_of(major_minor, version):
    """Position of a (major, minor) in the release order; SlurmOpsError when it is not a release."""
    major_minor = tuple(major_minor)
    name = _release_text(major_minor)
    if major_minor < KNOWN_RELEASES[0]:
        raise SlurmOpsError("Slurm %s (from '%s') is older than %s, the oldest release this collection knows"
                            % (name, _clip(version, 60), _release_text(KNOWN_RELEASES[0])))
    if major_minor[0] > _LAST_MAJOR:
        raise SlurmOpsError("Slurm %s (from '%s') is not a Slurm major release: Slurm versions are YY.MM, such as 24.11"
                            % (name, _clip(version, 60)))
    index = 0
    while _release_at(index) < major_minor:
        index += 1
    if _release_at(index) != major_minor:
        raise SlurmOpsError("Slurm %s (from '%s') is not a Slurm major release (releases around it: %s, %s)"
                            % (name, _clip(version, 60), _release_text(_release_at(index - 1)),
                               _release_text(_release_at(index))))
    return index


def release_index(version):
    """Position of the version's major release in Slurm's release order (17.02 is 0)."""
    return _index_of(parse_slurm_version(version)[:2], version)


def _window_at(index):
    return 3 if _release_at(index) >= _WIDER_WINDOW_FROM else 2


def upgrade_window(target):
    """How many older major releases the target's release accepts state and RPCs from: 2, or 3 from 24.11 on."""
    return _window_at(release_index(target))


# --- upgrade check -------------------------------------------------------------

MAX_JUMP_VARIABLE = "slurm_maintenance_max_release_jump"
_DIGITS_RE = re.compile(r"^[0-9]+$")


def _max_jump(value):
    """None, or max_jump as a positive int (a string of digits is accepted)."""
    if value is None:
        return None
    if isinstance(value, _TEXT_TYPES) and _DIGITS_RE.match(value.strip()) and len(value.strip()) <= MAX_DIGITS:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SlurmOpsError("%s must be a positive whole number of major releases, got %r"
                            % (MAX_JUMP_VARIABLE, value))
    return value


def _path(start, end, max_jump):
    """Releases (indexes) of a supported route from start to end, both included.

    Greedy: from each release, the furthest release not past end whose window
    (and max_jump) accepts it. Windows only grow with newer releases, so this
    is also the shortest route.
    """
    path = [start]
    current = start
    while current < end:
        for candidate in range(end, current, -1):
            jump = candidate - current
            if jump <= _window_at(candidate) and (max_jump is None or jump <= max_jump):
                break
        path.append(candidate)
        current = candidate
    return path


def upgrade_check(installed, target, max_jump=None):
    """Whether Slurm supports upgrading every installed package to target in one step.

    ``installed``: {label: installed version}, labels such as ``mt-gpu01 slurmd``.
    ``target``: the version to install. ``max_jump``: None, or a positive whole
    number of major releases that may only narrow the target's window.

    Returns {ok, target, target_release, oldest_release, oldest, releases,
    jump, allowed, path, downgrade, message}; see the filter documentation
    (plugins/filter/slurm_upgrade_check.yml). ``path`` is empty when target is
    older than every installed release.
    """
    if not isinstance(installed, dict):
        raise SlurmOpsError("the installed Slurm versions must be a dict of label to version, got %s"
                            % type(installed).__name__)
    if not installed:
        raise SlurmOpsError("no installed Slurm package to check the upgrade against")
    releases = {}
    indexes = {}
    for label, version in installed.items():
        if not isinstance(label, _TEXT_TYPES) or not label.strip():
            raise SlurmOpsError("the installed Slurm versions must be labelled with non-empty strings, got %r"
                                % (label,))
        if version is None or (isinstance(version, _TEXT_TYPES) and not version.strip()):
            raise SlurmOpsError("%s: no installed version" % _one_line(label))
        try:
            indexes[label] = release_index(version)
        except SlurmOpsError as exc:
            raise SlurmOpsError("%s: %s" % (_one_line(label), exc))
        releases[label] = _release_text(_release_at(indexes[label]))
    try:
        target_index = release_index(target)
    except SlurmOpsError as exc:
        raise SlurmOpsError("upgrade target: %s" % exc)
    limit = _max_jump(max_jump)
    window = _window_at(target_index)
    allowed = window if limit is None else min(limit, window)
    target_release = _release_text(_release_at(target_index))

    oldest_index = min(indexes.values())
    oldest_release = _release_text(_release_at(oldest_index))
    oldest = sorted((label for label, index in indexes.items() if index == oldest_index), key=_natural_key)
    newer = sorted(label for label, index in indexes.items() if index > target_index)
    downgrade = bool(newer)
    jump = target_index - oldest_index
    path = [] if jump < 0 else [_release_text(_release_at(index)) for index in _path(oldest_index, target_index, limit)]
    ok = not downgrade and jump <= allowed

    if downgrade:
        newer_releases = sorted(set(indexes[label] for label in newer))
        message = ("Slurm does not support downgrading from %s (%s) to %s: restore the backups taken before "
                   "the upgrade instead."
                   % (" and ".join(_release_text(_release_at(index)) for index in newer_releases),
                      _labels(newer), target_release))
    elif jump == 0:
        message = "every Slurm package is at %s; %s stays in that release" % (target_release, _one_line(target))
    elif ok:
        skipped = [_release_text(_release_at(index)) for index in range(oldest_index + 1, target_index)]
        message = "%s (%s) -> %s is %s, skipping %s; within the %d older releases %s accepts" % (
            oldest_release, _labels(oldest), target_release, _plural(jump, "major release"),
            "%s (%s)" % (_plural(len(skipped), "release"), ", ".join(skipped)) if skipped else "none",
            window, target_release)
        if limit is not None and limit < window:
            message += ", and %s allows %d" % (MAX_JUMP_VARIABLE, limit)
    else:
        lowest = _release_text(_release_at(target_index - allowed))
        if allowed < window:
            reason = ("This playbook will not upgrade from %s (%s) straight to %s: %s allows at most %d "
                      "(%s and newer; %s itself accepts %d)"
                      % (oldest_release, _labels(oldest), target_release, MAX_JUMP_VARIABLE, allowed, lowest,
                         target_release, window))
        else:
            reason = ("Slurm does not support upgrading from %s (%s) straight to %s: %s accepts state from at most "
                      "%d older major releases (%s and newer)"
                      % (oldest_release, _labels(oldest), target_release, target_release, window, lowest))
        message = "%s, and %s is %d older. Upgrade in steps: %s, running this playbook once per step." % (
            reason, oldest_release, jump, " -> ".join(path))
    return {
        "ok": ok,
        "target": target,
        "target_release": target_release,
        "oldest_release": oldest_release,
        "oldest": oldest,
        "releases": releases,
        "jump": jump,
        "allowed": allowed,
        "path": path,
        "downgrade": downgrade,
        "message": message,
    }


# --- package managers ----------------------------------------------------------

_APT_HEADER_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9+._-]*(?::[A-Za-z0-9_-]+)?):$")
_APT_NOTICE_RE = re.compile(r"^[NWE]: ")
_APT_FIELDS = {"Installed": "installed", "Candidate": "candidate"}


def _apt_value(value):
    value = value.strip()
    return None if value in ("", "(none)") else value


def parse_apt_policy(text):
    """{package: {installed, candidate}} of ``apt-cache policy PKG...`` output (run with LC_ALL=C).

    A version is None where apt prints ``(none)``. Packages apt cannot locate
    (``N: Unable to locate package X``) are left out; the version table and pin
    lines are skipped. Empty output gives {}.
    """
    what = "apt-cache policy"
    text = _as_text(text, what)
    packages = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if raw[:1] in (" ", "\t"):
            if current is None:
                raise SlurmOpsError("%s: indented line before any package: '%s'" % (what, _clip(line)))
            key, sep, value = line.partition(":")
            if sep and key in _APT_FIELDS:
                packages[current][_APT_FIELDS[key]] = _apt_value(value)
            continue
        if _APT_NOTICE_RE.match(line):
            current = None
            continue
        match = _APT_HEADER_RE.match(line)
        if match is None:
            raise SlurmOpsError("%s: expected 'package:' or an indented line, got '%s'" % (what, _clip(line)))
        current = match.group(1)
        packages[current] = {}
    for name in sorted(packages):
        missing = [key for key in ("Installed", "Candidate") if _APT_FIELDS[key] not in packages[name]]
        if missing:
            raise SlurmOpsError("%s: package %s has no %s line" % (what, name, " or ".join("%s:" % key for key in missing)))
    return packages


_NOT_INSTALLED_RE = re.compile(r"^package \S+ is not installed$")
_NONE_EPOCH = "(none):"


def _version_key(version):
    try:
        major, minor, micro = parse_slurm_version(version)
    except SlurmOpsError:
        return None
    return major, minor, -1 if micro is None else micro


def parse_name_versions(text):
    """{name: version} of 'name version' lines.

    The output of ``rpm -q --qf '%{NAME} %{EPOCH}:%{VERSION}-%{RELEASE}\\n'``
    or ``dnf repoquery --qf '%{name} %{evr}'``. rpm's ``package X is not
    installed`` lines are skipped and its ``(none):`` epoch is dropped. A name
    listed more than once keeps its newest Slurm version (by major, minor,
    micro; the later line on a tie or when a version is not a Slurm one).
    """
    what = "package versions"
    text = _as_text(text, what)
    versions = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _NOT_INSTALLED_RE.match(line):
            continue
        fields = line.split()
        if len(fields) != 2:
            raise SlurmOpsError("%s: expected 'name version', got '%s'" % (what, _clip(line)))
        name, version = fields
        if version.startswith(_NONE_EPOCH):
            version = version[len(_NONE_EPOCH):]
        if not version:
            raise SlurmOpsError("%s: expected 'name version', got '%s'" % (what, _clip(line)))
        if name in versions:
            old_key, new_key = _version_key(versions[name]), _version_key(version)
            if old_key is not None and new_key is not None and new_key < old_key:
                continue
        versions[name] = version
    return versions


# --- jobs and nodes ------------------------------------------------------------

_JOB_ID_RE = re.compile(r"^[0-9]+(?:[_+.][0-9A-Za-z_\[\]+.-]*)?$")
_STATE_RE = re.compile(r"^[A-Z][A-Z_]*$")


def _fields(what, line, count):
    fields = line.split("|")
    if len(fields) != count:
        raise SlurmOpsError("%s: expected %d '|'-separated fields, got %d: '%s'" % (what, count, len(fields), _clip(line)))
    return [field.strip() for field in fields]


def _job_id(what, job_id, line):
    if not _JOB_ID_RE.match(job_id):
        raise SlurmOpsError("%s: unreadable job id '%s' in '%s'" % (what, _clip(job_id, 30), _clip(line)))
    return job_id


def _job_lines(what, text):
    """(job id, second field, third field) of each non-empty line of three ``|`` fields."""
    for raw in _as_text(text, what).splitlines():
        line = raw.strip()
        if line:
            job_id, second, third = _fields(what, line, 3)
            yield _job_id(what, job_id, line), second, third


def parse_squeue_jobs(text):
    """{job id: {state, nodes}} of ``squeue --noheader --all --states=all --format=%A|%T|%N``.

    ``nodes`` is the node list expanded to host names ([] while pending).
    """
    what = "squeue"
    jobs = {}
    for job_id, state, nodelist in _job_lines(what, text):
        if not _STATE_RE.match(state):
            raise SlurmOpsError("%s: job %s has an unreadable state '%s'" % (what, _clip(job_id, 30), _clip(state, 30)))
        if job_id in jobs:
            raise SlurmOpsError("%s: job %s is listed twice" % (what, _clip(job_id, 30)))
        nodes = []
        if nodelist and nodelist != "(null)":
            try:
                nodes = expand(nodelist)
            except HostlistError as exc:
                raise SlurmOpsError("%s: job %s has an unreadable node list: %s" % (what, _clip(job_id, 30), exc))
        jobs[job_id] = {"state": state, "nodes": nodes}
    return jobs


def parse_sacct_states(text):
    """{job id: {state, exit_code}} of ``sacct --noheader --parsable2 --allocations --format=JobID,State,ExitCode``.

    ``CANCELLED by 1000`` is read as ``CANCELLED``. Job ids stay strings
    (``12``, ``12_3`` for an array task, ``12+0`` for a heterogeneous job
    component); a job listed twice keeps its last line.
    """
    what = "sacct"
    jobs = {}
    for job_id, state, exit_code in _job_lines(what, text):
        words = state.split()
        if not words or not _STATE_RE.match(words[0]) or (len(words) > 1 and words[1] != "by"):
            raise SlurmOpsError("%s: job %s has an unreadable state '%s'" % (what, _clip(job_id, 30), _clip(state, 30)))
        jobs[job_id] = {"state": words[0], "exit_code": exit_code}
    return jobs


def cluster_state(nodes_text, jobs_text):
    """{nodes, jobs}: a snapshot of the cluster to compare with state_problems.

    ``nodes_text``: ``scontrol show node --oneliner`` output; each node is
    {state, base_state, flags, reason} as parse_scontrol_nodes reads them.
    ``jobs_text``: squeue output for parse_squeue_jobs.
    """
    try:
        nodes = parse_scontrol_nodes(nodes_text)
    except ValidateError as exc:
        raise SlurmOpsError(str(exc))
    return {
        "nodes": dict((name, {"state": node["state"], "base_state": node["base_state"],
                              "flags": list(node["flags"]), "reason": node["reason"]})
                      for name, node in nodes.items()),
        "jobs": parse_squeue_jobs(jobs_text),
    }


# --- before/after comparison ---------------------------------------------------

BAD_BASE_STATES = frozenset(("down", "unknown", "future", "inval"))
BAD_FLAGS = frozenset(("not_responding", "invalid_reg", "inval", "fail", "failing"))
ACTIVE_JOB_STATES = frozenset(("RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED"))
# Still alive, or done on its own: STAGE_OUT, SIGNALING, RESIZING and STOPPED
# are a job that is still there (burst buffer stage-out, being signalled,
# changing size, SIGSTOPped).
SURVIVED_JOB_STATES = ACTIVE_JOB_STATES | frozenset(("COMPLETED", "STAGE_OUT", "SIGNALING", "RESIZING", "STOPPED"))
LOST_JOB_STATES = frozenset(("NODE_FAIL", "BOOT_FAIL", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "PENDING",
                             "PREEMPTED"))
ENDED_JOB_STATES = frozenset(("CANCELLED", "FAILED", "TIMEOUT", "OUT_OF_MEMORY", "DEADLINE"))


def _check_snapshot(name, snapshot):
    """The snapshot's nodes and jobs, checked to have the shape cluster_state gives."""
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("nodes"), dict) \
            or not isinstance(snapshot.get("jobs"), dict):
        raise SlurmOpsError("%s must be a cluster state (a dict with 'nodes' and 'jobs' dicts, as "
                            "slurm_cluster_state returns), got %s" % (name, type(snapshot).__name__))
    for node, entry in snapshot["nodes"].items():
        if not isinstance(node, _TEXT_TYPES) or not isinstance(entry, dict) \
                or not isinstance(entry.get("state"), _TEXT_TYPES) \
                or not isinstance(entry.get("base_state"), _TEXT_TYPES) \
                or not isinstance(entry.get("flags"), list) \
                or not all(isinstance(flag, _TEXT_TYPES) for flag in entry["flags"]) \
                or not isinstance(entry.get("reason"), _TEXT_TYPES + (type(None),)):
            raise SlurmOpsError("%s: node %r must be a dict with state, base_state, flags and reason" % (name, node))
    for job, entry in snapshot["jobs"].items():
        if not isinstance(job, _TEXT_TYPES) or not isinstance(entry, dict) \
                or not isinstance(entry.get("state"), _TEXT_TYPES) \
                or not isinstance(entry.get("nodes"), list) \
                or not all(isinstance(node, _TEXT_TYPES) and node for node in entry["nodes"]):
            raise SlurmOpsError("%s: job %r must be a dict with a state and a list of nodes" % (name, job))
    return snapshot["nodes"], snapshot["jobs"]


def _check_sacct(sacct):
    if sacct is None:
        return None
    if not isinstance(sacct, dict):
        raise SlurmOpsError("sacct must be a dict of job states (as slurm_sacct_states returns) or None, got %s"
                            % type(sacct).__name__)
    for job, entry in sacct.items():
        if not isinstance(job, _TEXT_TYPES) or not isinstance(entry, dict) \
                or not isinstance(entry.get("state"), _TEXT_TYPES):
            raise SlurmOpsError("sacct: job %r must be a dict with a state" % (job,))
    return sacct


def _node_bad(node):
    return node["base_state"] in BAD_BASE_STATES or bool(BAD_FLAGS.intersection(node["flags"]))


def node_answering(node):
    """True when a node of cluster_state() answers the controller and is usable.

    Not DOWN, UNKNOWN, FUTURE or INVAL, and none of NOT_RESPONDING (``*``),
    INVALID_REG, INVAL, FAIL, FAILING; a drain does not count here.
    """
    if not isinstance(node, dict) or not isinstance(node.get("base_state"), _TEXT_TYPES) \
            or not isinstance(node.get("flags"), list):
        raise SlurmOpsError("expected a node of slurm_cluster_state (a dict with base_state and flags), got %s"
                            % _clip(repr(node)))
    return not _node_bad(node)


def _with_reason(node):
    return " (Reason=%s)" % _clip(node["reason"], 200) if node["reason"] else ""


def _job_nodes(nodes):
    if not nodes:
        return "no nodes"
    try:
        return compress(nodes)
    except HostlistError:
        return ",".join(nodes)


def state_problems(before, after, sacct=None):
    """What went wrong for nodes and running jobs between two cluster_state snapshots.

    Returns {problems, notes, nodes, jobs}: ``problems`` and ``notes`` are
    one-line messages; ``nodes`` maps each node whose State changed (or that
    appeared or went away) to 'BEFORE -> AFTER'; ``jobs`` maps each job that
    was running before to 'BEFORE -> AFTER'. ``sacct`` (parse_sacct_states,
    or None) gives the end state of jobs that squeue no longer lists.
    """
    nodes_before, jobs_before = _check_snapshot("before", before)
    nodes_after, jobs_after = _check_snapshot("after", after)
    sacct = _check_sacct(sacct)
    problems = []
    notes = []
    node_changes = {}
    for name in sorted(set(nodes_before) | set(nodes_after), key=_natural_key):
        old = nodes_before.get(name)
        new = nodes_after.get(name)
        if new is None:
            node_changes[name] = "%s -> (absent)" % old["state"]
            problems.append("%s was %s before the change and is no longer listed by scontrol show node"
                            % (name, old["state"]))
            continue
        if old is None:
            node_changes[name] = "(absent) -> %s" % new["state"]
            notes.append("%s is new: it was not listed before the change (now %s)" % (name, new["state"]))
            continue
        if old["state"] != new["state"]:
            node_changes[name] = "%s -> %s" % (old["state"], new["state"])
        old_bad, new_bad = _node_bad(old), _node_bad(new)
        old_drain, new_drain = "drain" in old["flags"], "drain" in new["flags"]
        if new_bad and not old_bad:
            problems.append("%s went from %s to %s%s" % (name, old["state"], new["state"], _with_reason(new)))
        elif new_bad:
            notes.append("%s was already %s before the change%s"
                         % (name, old["state"], "" if old["state"] == new["state"] else " (now %s)" % new["state"]))
        elif old_bad:
            notes.append("%s went from %s to %s" % (name, old["state"], new["state"]))
        if new_drain and not old_drain and not (new_bad and not old_bad):
            problems.append("%s is now drained%s, it was not before" % (name, _with_reason(new)))
        elif old_drain and not new_drain:
            notes.append("%s is no longer drained (was %s, now %s)" % (name, old["state"], new["state"]))

    job_changes = {}
    for job_id in sorted(jobs_before, key=_natural_key):
        old = jobs_before[job_id]
        if old["state"] not in ACTIVE_JOB_STATES:
            continue
        where = _job_nodes(old["nodes"])
        if job_id in jobs_after:
            state = jobs_after[job_id]["state"]
        elif sacct is not None and job_id in sacct:
            state = sacct[job_id]["state"]
        else:
            job_changes[job_id] = "%s -> (unknown)" % old["state"]
            notes.append("job %s on %s finished; without %s its end state is unknown"
                         % (job_id, where, "accounting" if sacct is None else "an accounting record"))
            continue
        job_changes[job_id] = "%s -> %s" % (old["state"], state)
        if state in SURVIVED_JOB_STATES:
            continue
        if state in LOST_JOB_STATES:
            problems.append("job %s on %s was %s and is now %s%s" % (
                job_id, where, old["state"], state, " (it was requeued)" if state == "PENDING" else ""))
        elif state in ENDED_JOB_STATES:
            notes.append("job %s on %s ended %s (its own end or a user's; not caused by a node failure)"
                         % (job_id, where, state))
        else:
            notes.append("job %s on %s was %s and is now %s" % (job_id, where, old["state"], state))
    # One line each, whatever white space a name, state or reason held.
    return {
        "problems": [_one_line(line) for line in problems],
        "notes": [_one_line(line) for line in notes],
        "nodes": dict((name, _one_line(change)) for name, change in node_changes.items()),
        "jobs": dict((job_id, _one_line(change)) for job_id, change in job_changes.items()),
    }


# No error of Python's own leaves a parser: anything no rule foresaw becomes SlurmOpsError.
def state_shared_problems(host, state_dir, controllers, mark, seen, user="slurm"):
    """Why this controller cannot share StateSaveLocation with the others ([] when it can).

    Each controller wrote a file named after itself into <state_dir>/.gpuops-controllers as the slurm user
    (mark: that command's {rc, stderr}), then listed the folder (seen: the file names). A backup takes over
    with the state the primary saved, so every controller must write there and see every other's file: the
    same storage, mounted on each."""
    state_dir, user = _one_line(_as_text(state_dir, "state_dir")), _one_line(_as_text(user, "user"))
    mark = mark if isinstance(mark, dict) else {}
    problems = []
    rc = mark.get("rc")
    if rc not in (0, None) or mark.get("failed"):
        why = _one_line(_as_text(mark.get("stderr") or mark.get("msg") or "rc %s" % rc, "stderr"))[:200]
        problems.append("%s: the %s user cannot write StateSaveLocation (%s): %s. slurmctld keeps its state there; "
                        "give the %s user a directory it owns there (on NFS, an export without root_squash for the "
                        "collection to create it, or create it yourself) and run again."
                        % (host, user, state_dir, why, user))
        return problems
    wanted = [str(name) for name in controllers] if isinstance(controllers, (list, tuple)) else []
    names = set(str(name) for name in seen) if isinstance(seen, (list, tuple)) else set()
    missing = [name for name in wanted if name not in names]
    if missing:
        problems.append("%s does not see the files %s wrote to StateSaveLocation (%s): it is not the same storage on "
                        "every controller, and a backup would take over without the jobs. Mount one shared file "
                        "system at %s on every controller (or set slurm_state_save_location to a path on it); "
                        "controllers not in this run's play wrote theirs earlier, or never."
                        % (host, ", ".join(missing), state_dir, state_dir))
    return problems


parse_slurm_version = guarded(SlurmOpsError, 'Slurm version')(parse_slurm_version)
parse_apt_policy = guarded(SlurmOpsError, 'apt-cache policy')(parse_apt_policy)
parse_name_versions = guarded(SlurmOpsError, 'package versions')(parse_name_versions)
parse_squeue_jobs = guarded(SlurmOpsError, 'squeue')(parse_squeue_jobs)
parse_sacct_states = guarded(SlurmOpsError, 'sacct')(parse_sacct_states)
release_name = guarded(SlurmOpsError, 'Slurm version')(release_name)
release_index = guarded(SlurmOpsError, 'Slurm version')(release_index)
upgrade_window = guarded(SlurmOpsError, 'Slurm version')(upgrade_window)
upgrade_check = guarded(SlurmOpsError, 'upgrade check')(upgrade_check)
cluster_state = guarded(SlurmOpsError, 'cluster state')(cluster_state)
node_answering = guarded(SlurmOpsError, 'node')(node_answering)
state_problems = guarded(SlurmOpsError, 'state problems')(state_problems)
state_shared_problems = guarded(SlurmOpsError, 'StateSaveLocation check')(state_shared_problems)
