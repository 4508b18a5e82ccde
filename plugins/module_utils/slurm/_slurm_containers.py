# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Containers in Slurm jobs (enroot and pyxis): the plan and the checks, as pure functions.

``plan`` takes the role's settings and a few host facts (mounts, the
installed Slurm and libslurm-dev versions, the pyxis build stamp) and says
what the host gets: where each enroot path goes, whether pyxis must be
(re)built, the plugstack line, and every input error as a message naming the
variable and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

_SHA256_RE = re.compile(r"[0-9a-fA-F]{64}\Z")
_URL_RE = re.compile(r"(https?|file)://\S+\Z")
_PATH_RE = re.compile(r"/[^\s\x00]*\Z")
_WORD_RE = re.compile(r"[^\s\x00=]+\Z")
_NUMBER_RE = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?\Z")
# pyxis's plugstack arguments (pyxis README, "Slurm plugstack configuration").
PYXIS_ARGS = ("runtime_path", "execute_entrypoint", "container_scope", "sbatch_support", "use_enroot_load",
              "importer", "container_image_save")


def source_kind(src):
    """"url", "path" (a file on the Ansible controller) or None for what is neither (or not text)."""
    if not isinstance(src, str):
        return None
    if _URL_RE.match(src):
        return "url"
    if src.startswith("/"):
        return "path"
    return None


def mount_of(path, mounts):
    """The mount (Ansible's ansible_facts.mounts entry) holding path: the longest mount point above it."""
    path = posixpath.normpath(str(path))
    best = None
    for mount in mounts if isinstance(mounts, list) else []:
        point = mount.get("mount") if isinstance(mount, dict) else None
        if not point or not isinstance(point, str):
            continue
        if path == point or path.startswith(point.rstrip("/") + "/") or point == "/":
            if best is None or len(point) > len(best.get("mount") or ""):
                best = mount
    return best


def _version(text):
    """'22.05.8-4+deb12u3' -> '22.05.8' (Slurm's release without the Debian revision)."""
    match = re.match(r"(?:[0-9]{1,9}:)?([0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9})", text) if isinstance(text, str) else None
    return match.group(1) if match else None


def plan(settings, facts):
    """What one host gets, and the input errors.

    settings: enroot_src, enroot_sha256, pyxis_src, pyxis_sha256, local_path,
    min_free_gib, pyxis_args (dict), pyxis_version, enroot_version.
    facts: mounts (ansible_facts.mounts), slurm_version (the installed Slurm
    package's version), libslurm_version (libslurm-dev's, None when not yet
    installed), stamp (the pyxis build stamp's text, "" when none),
    check_space (false where the path's file system is not known yet).
    """
    errors = []
    if not isinstance(settings, dict):
        settings = {}
        errors.append("the slurm_containers settings must be a mapping of the slurm_containers_ variables")
    facts = facts if isinstance(facts, dict) else {}
    for name in ("enroot", "pyxis"):
        src = settings.get(name + "_src")
        if not source_kind(src):
            errors.append("slurm_containers_%s_src: %s is neither an http(s)/file URL nor an absolute path on the "
                          "Ansible controller: give the %s source tarball's URL on your mirror, or its path"
                          % (name, shown(src), name))
        sha256 = settings.get(name + "_sha256")
        if not isinstance(sha256, str) or not _SHA256_RE.match(sha256):
            errors.append("slurm_containers_%s_sha256: give the SHA-256 of the %s tarball (64 hex digits, "
                          "sha256sum of the file you mirrored); without it the source is not verified" % (name, name))
    local = settings.get("local_path")
    local = local if isinstance(local, str) and _PATH_RE.match(local) else ""
    if not local.startswith("/") or local.rstrip("/").startswith("/run") or local.rstrip("/") in ("", "/tmp"):
        errors.append("slurm_containers_local_path: %s must be an absolute path on local disk, not under /run (a "
                      "small tmpfs: images fill it) or /tmp; for example /var/lib/enroot or a local /scratch"
                      % shown(settings.get("local_path")))
    args = _pyxis_args(settings.get("pyxis_args"), errors)
    paths = {
        "runtime": posixpath.join(local, "runtime"),
        "cache": posixpath.join(local, "cache"),
        "data": posixpath.join(local, "data"),
        "temp": posixpath.join(local, "tmp"),
    }
    mount = mount_of(local, facts.get("mounts")) if local.startswith("/") else None
    free_gib = None
    if mount and _gib(mount.get("size_available")) is not None:
        free_gib = round(_gib(mount["size_available"]) / 1024 ** 3, 1)
    need = _gib(settings.get("min_free_gib"))
    if need is None:
        errors.append("slurm_containers_min_free_gib: %s is not a number of GiB: give the free space the local path "
                      "needs, such as 20" % shown(settings.get("min_free_gib")))
        need = 0
    if facts.get("check_space", True) and free_gib is not None and free_gib < need:
        errors.append("slurm_containers_local_path %s is on %s with %.1f GiB free, less than "
                      "slurm_containers_min_free_gib (%s): container images and their unpacked root file systems "
                      "go there; put it on a larger local disk or lower the minimum"
                      % (local, mount.get("mount"), free_gib, settings.get("min_free_gib")))
    slurm = _version(facts.get("slurm_version"))
    headers = _version(facts.get("libslurm_version"))
    if facts.get("libslurm_version") and slurm and headers != slurm:
        errors.append("libslurm-dev %s does not match the installed Slurm %s: pyxis must be built against the "
                      "headers of the Slurm release that runs it; install libslurm-dev of the same version (the "
                      "package sources that gave Slurm)" % (facts.get("libslurm_version"), facts.get("slurm_version")))
    version = settings.get("pyxis_version")
    stamp = "pyxis %s slurm %s" % (version if isinstance(version, str) and version else "?", slurm or "?")
    plugin = settings.get("pyxis_plugin")
    line = " ".join(["required", plugin if isinstance(plugin, str) else ""]
                    + ["%s=%s" % (key, _arg(args[key])) for key in sorted(args)])
    return {
        "paths": paths,
        "free_gib": free_gib,
        "mount": (mount or {}).get("mount"),
        "slurm_version": slurm,
        "stamp": stamp,
        "rebuild_pyxis": (facts.get("stamp") if isinstance(facts.get("stamp"), str) else "").strip() != stamp,
        "plugstack_line": line.strip(),
        "errors": errors,
    }


def _pyxis_args(value, errors):
    """slurm_containers_pyxis_args checked: {option: value} of the known options with a value plugstack.conf can
    hold (a word, a number, true/false); every other entry is an error."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.append("slurm_containers_pyxis_args: give a mapping of pyxis option to value (container_scope: job), "
                      "not %s" % shown(value))
        return {}
    unknown = sorted(shown(key) if not isinstance(key, str) else key for key in value if key not in PYXIS_ARGS)
    if unknown:
        errors.append("slurm_containers_pyxis_args: unknown pyxis option(s) %s: use %s"
                      % (", ".join(unknown), ", ".join(PYXIS_ARGS)))
    args = {}
    for key in PYXIS_ARGS:
        if key not in value:
            continue
        item = value[key]
        if isinstance(item, bool) or (isinstance(item, int) and abs(item) < 10 ** 9) \
                or (isinstance(item, str) and _WORD_RE.match(item)):
            args[key] = item
        else:
            errors.append("slurm_containers_pyxis_args: %s is %s: give a word without blanks, a whole number or "
                          "true/false" % (key, shown(item)))
    return args


def _gib(value):
    """A non-negative number (int, finite float or decimal text) as a float, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and _NUMBER_RE.match(value.strip()):
        value = float(value)
    if isinstance(value, int) and abs(value) < 10 ** 18:
        value = float(value)
    if isinstance(value, float) and 0 <= value < 1e18:  # not .nan (no comparison holds) nor .inf
        return value
    return None


def _arg(value):
    if isinstance(value, bool):
        return 1 if value else 0
    return value


def source_errors(checked):
    """One message per source tarball on the Ansible controller that is missing or has another SHA-256.

    checked: the results of the stat loop, each {item: {name, src, sha256}, stat: {exists, checksum}}.
    """
    errors = []
    for entry in checked if isinstance(checked, list) else []:
        item = entry.get("item") if isinstance(entry, dict) else None
        stat = entry.get("stat") if isinstance(entry, dict) else None
        if not isinstance(item, dict) or not isinstance(stat, dict):
            continue
        name, src, sha256 = item.get("name"), item.get("src"), item.get("sha256")
        if not stat.get("exists"):
            errors.append("%s: the source %s does not exist on the Ansible controller: set slurm_containers_%s_src to "
                          "the tarball from your mirror" % (name, src, name))
        elif stat.get("checksum", "") != (sha256.lower() if isinstance(sha256, str) else sha256):
            errors.append("%s: %s has SHA-256 %s, not %s (slurm_containers_%s_sha256): the file is not the one you "
                          "meant, or the checksum is wrong" % (name, src, stat.get("checksum"), sha256, name))
    return errors


def nvidia_cli_skip(setting, gpu_host, container):
    """Why a host gets no NVIDIA container CLI, or '' when it gets one.

    setting: slurm_containers_nvidia_container (false, or as Jinja's string prints it 'false', turns it off);
    gpu_host: an NVIDIA GPU is driven here; container: the host is a container.
    """
    if str(setting).lower() == "false":
        return "slurm_containers_nvidia_container is false"
    if not gpu_host:
        return "no NVIDIA GPU found"
    if container:
        return "a container: no GPU to give a job"
    return ""
