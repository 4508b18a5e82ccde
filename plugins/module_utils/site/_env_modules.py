# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the env_modules role writes: pure functions over its settings and what it found on the host.

The role passes its variables, the OS data of vars/ and the results of its
look-ups (the /usr/local/cuda-<version> directories, the distribution's
toolkit package, the toolkits' nvcc and lib64, where /usr/local/cuda points,
the modulefiles it wrote before) and gets back the setting errors, the default
MODULEPATH, the CUDA toolkits to write modulefiles for, and the files to write
and remove. The templates only print the plan.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown, unique

# The line every modulefile the role writes starts its comment with (so that only those are ever removed).
MARKER = "## Managed by gpuops.cluster.env_modules"

# Versions are read with at most 4 digits a part (int() refuses 4,300 and reads Unicode digits).
_CUDA_DIR = re.compile(r"cuda-([0-9]{1,4})\.([0-9]{1,4})\Z")
# A distribution package version: optional epoch, then major.minor (Debian: 11.8.89~11.8.0-5~deb12u1).
_PKG_VERSION = re.compile(r"(?:[0-9]{1,9}:)?([0-9]{1,4})\.([0-9]{1,4})(?:[.~+-]|\Z)")
# A path Lmod's MODULEPATH file and the colon-separated MODULEPATH can hold: absolute, no blank, colon or quote.
_PLAIN_PATH = re.compile(r"^/[^\s:'\"\\$`]*$")

PATH_SETTINGS = ("dir", "nccl_conf_path", "bash_env_path", "task_prolog_path")
_VARS = {
    "dir": "env_modules_dir",
    "paths": "env_modules_paths",
    "nccl_conf_path": "env_modules_nccl_conf_path",
    "bash_env_path": "env_modules_bash_env_path",
    "task_prolog_path": "env_modules_task_prolog_path",
    "cuda": "env_modules_cuda",
    "nccl": "env_modules_nccl",
}


class EnvModulesError(Exception):
    """Input the plan cannot be made from (not the settings: those give errors)."""


def _path_problem(value):
    """Why value is not a usable absolute path, or None."""
    if not isinstance(value, str) or not value:
        return "must be an absolute path, not %s" % (shown(value) if value is not None else "null")
    if not _PLAIN_PATH.match(value):
        return "must be an absolute path without blanks, colons, quotes, $, backquotes or backslashes, not %s" % shown(value)
    if posixpath.normpath(value) != value or value == "/":
        return "must be a normalised absolute path below / (no trailing slash, . or ..), not %s" % shown(value)
    return None


def settings_errors(settings):
    """One message per bad setting, naming the variable and the fix (any value of any type; never raises).

    settings: as for plan, and os_data (false: the role has no package data for the OS, named os_name).
    """
    if not isinstance(settings, dict):
        return ["the env_modules settings must be a mapping of the env_modules_ variables, not %s." % shown(settings)]
    errors = []
    if settings.get("os_data") is False:
        errors.append("no Lmod data for %s (roles/env_modules/vars)." % plain(settings.get("os_name")))
    for key in PATH_SETTINGS:
        problem = _path_problem(settings.get(key))
        if problem:
            errors.append("%s %s." % (_VARS[key], problem))
    paths = settings.get("paths")
    if not isinstance(paths, list):
        errors.append("env_modules_paths must be a list of absolute paths (site modulefile trees), not %s."
                      % shown(paths))
    else:
        for path in paths:
            problem = _path_problem(path)
            if problem:
                errors.append("env_modules_paths: every entry %s." % problem)
    for key in ("cuda", "nccl"):
        if not isinstance(settings.get(key), bool):
            errors.append("%s must be true or false, not %s." % (_VARS[key], shown(settings.get(key))))
    if not errors:
        own = [settings.get(key) for key in ("bash_env_path", "task_prolog_path")]
        tree = settings["dir"] + "/"
        if own[0] == own[1]:
            errors.append("env_modules_bash_env_path and env_modules_task_prolog_path must be two files, both are %r."
                          % own[0])
        for key in ("bash_env_path", "task_prolog_path"):
            if settings[key].startswith(tree):
                errors.append("%s (%r) must not be inside env_modules_dir (%r): Lmod would list it as a module."
                              % (_VARS[key], settings[key], settings["dir"]))
    return errors


def dir_levels(paths):
    """Every directory level below the top one of each path's directory, parents first, each once."""
    levels = []
    for path in paths:
        parts = path.strip("/").split("/")
        for end in range(2, len(parts) + 1):
            levels.append("/" + "/".join(parts[:end]))
    return unique(levels)


def cuda_version_from_dir(path):
    """12.8 from /usr/local/cuda-12.8, else None."""
    match = _CUDA_DIR.match(posixpath.basename(str(path).rstrip("/")))
    return "%d.%d" % (int(match.group(1)), int(match.group(2))) if match else None


def cuda_version_from_package(version):
    """11.8 from a package version such as 11.8.89~11.8.0-5~deb12u1 (or 1:12.4.131-2), else None."""
    match = _PKG_VERSION.match(version.strip()) if isinstance(version, str) else None
    return "%d.%d" % (int(match.group(1)), int(match.group(2))) if match else None


def _version_key(version):
    return tuple(int(part) for part in version.split("."))


def _paths_of(found, key):
    """The paths of a find result (dict with files, or a list of dicts or strings); EnvModulesError for another
    shape (the role's look-ups never give one)."""
    value = found.get(key) or []
    if isinstance(value, dict):
        value = value.get("files") or []
    if not isinstance(value, list):
        raise EnvModulesError("%s must be a list of files, not %s" % (key, shown(value)))
    paths = [item.get("path") if isinstance(item, dict) else item for item in value]
    if not all(isinstance(path, str) for path in paths):
        raise EnvModulesError("%s must be a list of paths, not %s" % (key, shown(value)))
    return paths


def _distro(found):
    """found's distro ([{package, prefix}]) and package_versions ({package: version or None}), checked."""
    distro = found.get("distro") or []
    versions = found.get("package_versions") or {}
    if not isinstance(distro, list) or not all(
            isinstance(entry, dict) and isinstance(entry.get("package"), str)
            and isinstance(entry.get("prefix") or "", str) for entry in distro):
        raise EnvModulesError("distro must be a list of {package, prefix}, not %s" % shown(distro))
    if not isinstance(versions, dict):
        raise EnvModulesError("package_versions must be a mapping of package to version, not %s" % shown(versions))
    return distro, versions


def cuda_toolkits(found):
    """The CUDA toolkits on the host: version, prefix and library directories, sorted by version.

    found: cuda_dirs (the /usr/local/cuda-<major.minor> directories), distro (the distribution's toolkits:
    [{package, prefix}]), package_versions ({package: version or None}), files (host_probe's files: which
    <prefix>/bin/nvcc and <prefix>/lib64 exist). A toolkit counts when its bin/nvcc exists; of two with the
    same version the first wins (NVIDIA's /usr/local/cuda-<version> before the distribution's).
    """
    existing = set(_paths_of(found, "files"))
    candidates = []
    for path in sorted(p for p in _paths_of(found, "cuda_dirs") if p):
        version = cuda_version_from_dir(path)
        if version:
            candidates.append((version, path.rstrip("/")))
    distro, versions = _distro(found)
    for entry in distro:
        version = cuda_version_from_package(versions.get(entry["package"]))
        if version and entry.get("prefix"):
            candidates.append((version, entry["prefix"].rstrip("/")))
    toolkits = []
    for version, prefix in candidates:
        if prefix + "/bin/nvcc" not in existing or version in [t["version"] for t in toolkits]:
            continue
        toolkits.append({"version": version, "prefix": prefix,
                         "lib_dirs": [prefix + "/lib64"] if prefix + "/lib64" in existing else []})
    return sorted(toolkits, key=lambda toolkit: _version_key(toolkit["version"]))


def probe_paths(found):
    """The paths the role asks host_probe about: nvcc and lib64 of every candidate toolkit."""
    prefixes = [p.rstrip("/") for p in _paths_of(found, "cuda_dirs") if p and cuda_version_from_dir(p)]
    prefixes += [entry["prefix"].rstrip("/") for entry in _distro(found)[0] if entry.get("prefix")]
    return [prefix + suffix for prefix in unique(prefixes) for suffix in ("/bin/nvcc", "/lib64")]


def plan(settings, found=None):
    """The plan: errors, modulepath, toolkits, cuda_default, files (file_bundle entries without content), stale.

    settings: dir, paths, distro_paths (the OS's own modulefile trees), cuda, nccl, nccl_conf_path, bash_env_path,
    task_prolog_path. found (after the look-ups; without it only the errors and the MODULEPATH): as for
    cuda_toolkits, plus cuda_link (where /usr/local/cuda resolves to, or empty) and managed (the modulefiles
    under <dir>/cuda and <dir>/nccl that carry MARKER).
    """
    if not isinstance(settings, dict):
        raise EnvModulesError("the settings must be a dict, not %s" % shown(settings))
    errors = settings_errors(settings)
    result = {"errors": errors, "modulepath": [], "toolkits": [], "cuda_default": "", "dirs": [], "files": [],
              "stale": [], "note": ""}
    if errors:
        return result
    distro_paths = settings.get("distro_paths") or []
    if not isinstance(distro_paths, list) or not all(isinstance(path, str) for path in distro_paths):
        raise EnvModulesError("distro_paths (the OS data) must be a list of paths, not %s" % shown(distro_paths))
    distro_paths = [p.rstrip("/") if p != "/" else p for p in distro_paths]
    result["modulepath"] = unique([settings["dir"]] + list(settings["paths"]) + distro_paths)
    if found is None:
        return result
    if not isinstance(found, dict):
        raise EnvModulesError("found must be a dict, not %s" % shown(found))

    top = settings["dir"]
    toolkits = cuda_toolkits(found) if settings["cuda"] else []
    link = found.get("cuda_link") or ""
    link = link.rstrip("/") if isinstance(link, str) else ""
    default = [t["version"] for t in toolkits if t["prefix"] == link]
    result["toolkits"] = toolkits
    result["cuda_default"] = default[0] if default else ""

    files = []
    if settings["nccl"]:
        files.append({"path": top + "/nccl", "kind": "nccl"})
    for toolkit in toolkits:
        files.append({"path": "%s/cuda/%s" % (top, toolkit["version"]), "kind": "cuda", "toolkit": toolkit})
    if result["cuda_default"]:
        files.append({"path": top + "/cuda/.version", "kind": "cuda_default"})
    result["files"] = files
    wanted = set(entry["path"] for entry in files)
    result["stale"] = sorted(path for path in _paths_of(found, "managed")
                             if path not in wanted and (path == top + "/nccl" or path.startswith(top + "/cuda/")))
    dirs = [top] + ([top + "/cuda"] if toolkits else [])
    dirs += [posixpath.dirname(settings[key]) for key in ("bash_env_path", "task_prolog_path")]
    result["dirs"] = dir_levels(dirs)
    if settings["cuda"] and not toolkits:
        result["note"] = ("no CUDA toolkit here (no /usr/local/cuda-<version>/bin/nvcc%s): no cuda modulefile"
                          % "".join(" or %s/bin/nvcc" % entry["prefix"] for entry in found.get("distro") or []
                                    if entry.get("prefix")))
    return result
