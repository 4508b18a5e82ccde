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

_SHA256_RE = re.compile(r"^[0-9a-fA-F]{64}$")
_URL_RE = re.compile(r"^(https?|file)://\S+$")
# pyxis's plugstack arguments (pyxis README, "Slurm plugstack configuration").
PYXIS_ARGS = ("runtime_path", "execute_entrypoint", "container_scope", "sbatch_support", "use_enroot_load",
              "importer", "container_image_save")


def source_kind(src):
    """"url", "path" (a file on the Ansible controller) or None for what is neither."""
    src = str(src or "")
    if _URL_RE.match(src):
        return "url"
    if src.startswith("/"):
        return "path"
    return None


def mount_of(path, mounts):
    """The mount (Ansible's ansible_facts.mounts entry) holding path: the longest mount point above it."""
    path = posixpath.normpath(str(path))
    best = None
    for mount in mounts or []:
        point = str(mount.get("mount") or "")
        if not point:
            continue
        if path == point or path.startswith(point.rstrip("/") + "/") or point == "/":
            if best is None or len(point) > len(best.get("mount") or ""):
                best = mount
    return best


def _version(text):
    """'22.05.8-4+deb12u3' -> '22.05.8' (Slurm's release without the Debian revision)."""
    match = re.match(r"^(?:[0-9]+:)?([0-9]+\.[0-9]+\.[0-9]+)", str(text or ""))
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
    for name in ("enroot", "pyxis"):
        src = settings.get(name + "_src")
        if not source_kind(src):
            errors.append("slurm_containers_%s_src: %r is neither an http(s)/file URL nor an absolute path on the "
                          "Ansible controller: give the %s source tarball's URL on your mirror, or its path"
                          % (name, src, name))
        if not _SHA256_RE.match(str(settings.get(name + "_sha256") or "")):
            errors.append("slurm_containers_%s_sha256: give the SHA-256 of the %s tarball (64 hex digits, "
                          "sha256sum of the file you mirrored); without it the source is not verified" % (name, name))
    local = str(settings.get("local_path") or "")
    if not local.startswith("/") or local.rstrip("/").startswith("/run") or local.rstrip("/") in ("", "/tmp"):
        errors.append("slurm_containers_local_path: %r must be an absolute path on local disk, not under /run (a "
                      "small tmpfs: images fill it) or /tmp; for example /var/lib/enroot or a local /scratch" % local)
    unknown = sorted(set(settings.get("pyxis_args") or {}) - set(PYXIS_ARGS))
    if unknown:
        errors.append("slurm_containers_pyxis_args: unknown pyxis option(s) %s: use %s"
                      % (", ".join(unknown), ", ".join(PYXIS_ARGS)))
    paths = {
        "runtime": posixpath.join(local, "runtime"),
        "cache": posixpath.join(local, "cache"),
        "data": posixpath.join(local, "data"),
        "temp": posixpath.join(local, "tmp"),
    }
    mount = mount_of(local, facts.get("mounts")) if local.startswith("/") else None
    free_gib = None
    if mount and mount.get("size_available") is not None:
        free_gib = round(float(mount["size_available"]) / 1024 ** 3, 1)
    need = float(settings.get("min_free_gib") or 0)
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
    stamp = "pyxis %s slurm %s" % (settings.get("pyxis_version") or "?", slurm or "?")
    args = settings.get("pyxis_args") or {}
    line = " ".join(["required", str(settings.get("pyxis_plugin") or "")]
                    + ["%s=%s" % (key, _arg(args[key])) for key in sorted(args)])
    return {
        "paths": paths,
        "free_gib": free_gib,
        "mount": (mount or {}).get("mount"),
        "slurm_version": slurm,
        "stamp": stamp,
        "rebuild_pyxis": (facts.get("stamp") or "").strip() != stamp,
        "plugstack_line": line.strip(),
        "errors": errors,
    }


def _arg(value):
    if isinstance(value, bool):
        return 1 if value else 0
    return value
