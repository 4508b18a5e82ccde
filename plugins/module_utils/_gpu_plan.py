# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What nvidia_driver and cuda install, from where: pure functions over the settings and the OS data.

The roles pass their variables and the OS data of vars/ (already resolved
for the chosen source) and get a plan back; tests/roles/test_gpu_stack_plan.py
renders it for Debian, Ubuntu and the RHEL family.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils._text import shown, unique

try:
    from urllib.parse import urlsplit
except ImportError:  # Python 2
    from urlparse import urlsplit


class GpuPlanError(Exception):
    """Settings a plan cannot be made from."""


def _text(value):
    return "" if value is None else str(value).strip()


# The settings of each plan by the shape they must have: text (a number is read as its text: branch: 570),
# lists of package names, mappings of kernel module flavour to such lists.
_TEXT_KEYS = ("source", "branch", "version", "pkg_manager", "kernel_modules", "fabricmanager", "repo_base_url",
              "repo_dist", "repo_arch", "repo_key_url", "repo_key_id", "apt_key_file", "default_version",
              "distro_package", "distro_prefix")
_LIST_KEYS = ("packages", "unversioned", "fabricmanager_packages", "source_fabricmanager")
_FLAVOUR_KEYS = ("source_packages", "hold_extra")


def _is_word(value):
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10 ** 18)


def _is_names(value):
    return isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)


def _check(settings, prefix):
    """GpuPlanError naming the variable (prefix + key) of the first setting of the wrong shape."""
    if not isinstance(settings, dict):
        raise GpuPlanError("the %s settings must be a mapping, not %s" % (prefix.rstrip("_"), shown(settings)))
    for key in _TEXT_KEYS:
        value = settings.get(key)
        if value is not None and (not _is_word(value) or "\n" in _text(value) or len(_text(value)) > 4096):
            raise GpuPlanError("%s%s must be text on one line such as %s, not %s"
                               % (prefix, key, "570" if key in ("branch", "version") else "'apt'", shown(value)))
    for key in _LIST_KEYS:
        value = settings.get(key)
        if value is not None and not _is_names(value):
            raise GpuPlanError("%s%s must be a list of package names, not %s" % (prefix, key, shown(value)))
    for key in _FLAVOUR_KEYS:
        value = settings.get(key)
        if value is not None and not (isinstance(value, dict) and all(
                isinstance(name, str) and (item is None or _is_names(item)) for name, item in value.items())):
            raise GpuPlanError("%s%s must be a mapping of kernel module flavour (proprietary, open) to a list of "
                               "package names, not %s" % (prefix, key, shown(value)))


def driver_branch(branch, version, default_branch):
    """The driver branch: nvidia_driver_branch, else the major of nvidia_driver_version, else the OS default."""
    if _text(branch):
        return _text(branch)
    if _text(version):
        return _text(version).split(".", 1)[0]
    return _text(default_branch)


def driver_plan(settings):
    """The driver plan: source, branch, version pattern and regex, packages, holds, services and repository.

    settings: source, branch, version, pkg_manager, kernel_modules, packages (override), source_packages
    ({proprietary, open}), unversioned, hold_extra ({proprietary, open}), fabricmanager (enabled|auto|disabled),
    fabric_manager_needed, fabricmanager_packages (override), source_fabricmanager, persistenced, repo_base_url,
    repo_dist, repo_arch, repo_key_url (override), repo_key_id, apt_key_file. A setting of another shape raises
    GpuPlanError naming it.
    """
    _check(settings, "nvidia_driver_")
    source = _text(settings.get("source"))
    branch = _text(settings.get("branch"))
    version = _text(settings.get("version"))
    modules = _text(settings.get("kernel_modules")) or "proprietary"
    if version:
        pattern, regex = version + "-*", "^([0-9]+:)?" + re.escape(version) + "-"
    else:
        pattern, regex = branch + ".*", "^([0-9]+:)?" + re.escape(branch) + r"\."
    override = list(settings.get("packages") or [])
    versioned = override or list((settings.get("source_packages") or {}).get(modules) or [])
    unversioned = [] if override else list(settings.get("unversioned") or [])
    hold_extra = list((settings.get("hold_extra") or {}).get(modules) or [])
    wanted = settings.get("fabricmanager")
    fm_wanted = wanted == "enabled" or (wanted == "auto" and bool(settings.get("fabric_manager_needed")))
    fm_packages = list(settings.get("fabricmanager_packages") or settings.get("source_fabricmanager") or [])
    services = (["nvidia-persistenced"] if settings.get("persistenced") else []) + (["nvidia-fabricmanager"] if fm_wanted else [])
    repo = {}
    if source == "nvidia":
        url = "%s/%s/%s" % (_text(settings.get("repo_base_url")).rstrip("/"), settings.get("repo_dist"), settings.get("repo_arch"))
        try:
            host = urlsplit(url).hostname
        except ValueError as exc:  # an unclosed [ of an IPv6 address, a bad port
            raise GpuPlanError("nvidia_driver_repo_base_url %s is not a URL (%s)"
                               % (shown(settings.get("repo_base_url")), exc))
        key_file = settings.get("apt_key_file")
        repo = {
            "url": url,
            "key_url": _text(settings.get("repo_key_url")) or "%s/%s.pub" % (url, settings.get("repo_key_id")),
            "apt_key_file": key_file,
            "apt_source": "deb [signed-by=%s] %s/ /" % (key_file, url),
            "apt_pin_origin": host,
            "dnf_name": "cuda-%s-%s" % (settings.get("repo_dist"), settings.get("repo_arch")),
        }
    return {
        "source": source,
        "branch": branch,
        "version": version,
        "version_pattern": pattern,
        "version_regex": regex,
        "pkg_manager": settings.get("pkg_manager"),
        "versioned": versioned,
        "unversioned": unversioned,
        "hold": unique(versioned + unversioned + hold_extra + (fm_packages if fm_wanted else [])),
        "fabricmanager": fm_wanted,
        "fabricmanager_packages": fm_packages if fm_wanted else [],
        "services": services,
        "repo": repo,
    }


_PART_RE = re.compile(r"[0-9]{1,9}\Z")


def _version_key(version):
    """Sort key of a version: its parts as numbers; a part that is not 1 to 9 ASCII digits counts 0.

    (str.isdigit() passes '\u00b2', which int() refuses, and int() refuses 4,300 digits: neither is a version.)
    """
    return tuple(int(part) if _PART_RE.match(part) else 0 for part in version.split("."))


def _versions(value, variable):
    """A list of versions as text; GpuPlanError naming variable for anything else."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(item, str) or (isinstance(item, (int, float)) and not isinstance(item, bool)) for item in value):
        raise GpuPlanError("%s must be a list of versions such as ['12.8'], not %s" % (variable, shown(value)))
    out = []
    for item in value:
        text = item if isinstance(item, str) else shown(item)
        if len(text) > 64:
            raise GpuPlanError("%s: %s is not a version such as 12.8" % (variable, shown(item)))
        out.append(text)
    return out


def cuda_plan(settings):
    """The CUDA plan: source, package manager, default version and one toolkit per version.

    settings: source, pkg_manager, versions (override), distro_versions, nvidia_default_versions, default_version,
    distro_package, distro_prefix. A setting of another shape raises GpuPlanError naming it.
    """
    _check(settings, "cuda_")
    source = _text(settings.get("source"))
    distro = source == "distro"
    versions = _versions(settings.get("versions"), "cuda_versions")
    if not versions:
        versions = _versions(settings.get("distro_versions") if distro else settings.get("nvidia_default_versions"),
                             "the OS data's CUDA versions")
    default = _text(settings.get("default_version")) or (sorted(versions, key=_version_key)[-1] if versions else "")
    toolkits = []
    for version in versions:
        numeric = re.match(r"([0-9]{1,4})\.([0-9]{1,4})\Z", version)
        toolkits.append({
            "version": version,
            "package": (settings.get("distro_package") or "") if distro else "cuda-toolkit-" + version.replace(".", "-"),
            "pattern": version + ".*" if distro else "",
            "regex": "^([0-9]+:)?" + re.escape(version) + "[.]",
            "prefix": (settings.get("distro_prefix") or "") if distro else "/usr/local/cuda-" + version,
            "priority": int(numeric.group(1)) * 100 + int(numeric.group(2)) if numeric else 0,
        })
    return {
        "source": source,
        "pkg_manager": settings.get("pkg_manager") or "",
        "default": default,
        "toolkits": toolkits,
        "distro_versions": _versions(settings.get("distro_versions"), "the OS data's CUDA versions"),
    }
