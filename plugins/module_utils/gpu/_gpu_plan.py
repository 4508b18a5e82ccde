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

import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._container import container_state
from ansible_collections.gpuops.cluster.plugins.module_utils.common._file_state import FileStateError, stale_entries
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown, unique

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


def _shape_errors(settings, prefix):
    """[(key, message)] for every setting of the wrong shape, each message naming the variable (prefix + key)."""
    found = []
    for key in _TEXT_KEYS:
        value = settings.get(key)
        if value is not None and (not _is_word(value) or "\n" in _text(value) or len(_text(value)) > 4096):
            found.append((key, "%s%s must be text on one line such as %s, not %s"
                          % (prefix, key, "570" if key in ("branch", "version") else "'apt'", shown(value))))
    for key in _LIST_KEYS:
        value = settings.get(key)
        if value is not None and not _is_names(value):
            found.append((key, "%s%s must be a list of package names, not %s" % (prefix, key, shown(value))))
    for key in _FLAVOUR_KEYS:
        value = settings.get(key)
        if value is not None and not (isinstance(value, dict) and all(
                isinstance(name, str) and (item is None or _is_names(item)) for name, item in value.items())):
            found.append((key, "%s%s must be a mapping of kernel module flavour (proprietary, open) to a list of "
                          "package names, not %s" % (prefix, key, shown(value))))
    return found


def _check(settings, prefix):
    """GpuPlanError naming the variable (prefix + key) of the first setting of the wrong shape."""
    if not isinstance(settings, dict):
        raise GpuPlanError("the %s settings must be a mapping, not %s" % (prefix.rstrip("_"), shown(settings)))
    found = _shape_errors(settings, prefix)
    if found:
        raise GpuPlanError(found[0][1])


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
    fm_install = fm_packages if fm_wanted else []
    dnf_suffix = "-" + version if version else ""
    install = {
        "apt": ["%s=%s" % (name, pattern) for name in versioned] + unversioned + fm_install,
        # A module stream (@nvidia-driver:570-dkms) carries its version; a package gets -<version> when one is set.
        "dnf": ([name if name.startswith("@") or not name else name + dnf_suffix for name in versioned]
                + unversioned + fm_install + ["python3-dnf-plugin-versionlock"]),
    }
    return {
        "source": source,
        "branch": branch,
        "version": version,
        "install": install,
        "version_pattern": pattern,
        "version_regex": regex,
        "pkg_manager": settings.get("pkg_manager"),
        "versioned": versioned,
        "unversioned": unversioned,
        "hold": unique(versioned + unversioned + hold_extra + (fm_packages if fm_wanted else [])),
        "fabricmanager": fm_wanted,
        "fabricmanager_packages": fm_install,
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


# --- the roles' preflight: every problem of the settings, as messages ------------------------------------------

_BRANCH_RE = re.compile(r"[0-9]{3,4}\Z")
_DRIVER_VERSION_RE = re.compile(r"[0-9]{3,4}\.[0-9]+(\.[0-9]+)?\Z")
_CUDA_VERSION_RE = re.compile(r"[0-9]+\.[0-9]+\Z")
_SECONDS_RE = re.compile(r"\s*[0-9]{1,9}(\.[0-9]*)?\s*\Z")
# The longest a value is quoted in a message.
_QUOTED = 60


def _json(value):
    """value as to_json writes it (text in double quotes), clipped; never raises."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, OverflowError, RecursionError):
        text = shown(value, _QUOTED)
    return text if len(text) <= _QUOTED else text[:_QUOTED - 3] + "..."


def _plain(value):
    """A fact as Jinja prints it: text, a number or a boolean as is; anything else quoted and clipped."""
    if isinstance(value, str):
        return value if len(value) <= _QUOTED else value[:_QUOTED - 3] + "..."
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 10 ** 18):
        return str(value)
    return shown(value, _QUOTED)


def _word(settings, key, bad):
    """A text setting as the plan reads it, or None where it has the wrong shape (its message is in bad)."""
    return None if key in bad else _text(settings.get(key))


def _seconds(value):
    """A number of seconds as `| int` reads it (text of digits, a whole or finite number), 0 for anything else."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if value < 10 ** 9 else 0
    if isinstance(value, float):
        return int(value) if 0 < value < 10 ** 9 else 0
    if isinstance(value, str) and _SECONDS_RE.match(value):
        return int(float(value))
    return 0


def driver_settings_errors(settings):
    """Every problem of the nvidia_driver settings, one message each naming the variable, its value and the fix.

    settings: those of driver_plan, and distribution, distribution_major_version, distro_default_branch (the
    branch the distribution's archive has), host, nvswitches (how many NVSwitch PCI devices), nvlink_all_to_all,
    reboot, reboot_with_jobs, reboot_timeout. Never raises; [] when all is well.
    """
    if not isinstance(settings, dict):
        return ["nvidia_driver_*: the nvidia_driver settings must be a mapping, not %s" % shown(settings)]
    shapes = _shape_errors(settings, "nvidia_driver_")
    errors = [message for _key, message in shapes]
    bad = set(key for key, _message in shapes)
    source, branch = _word(settings, "source", bad), _word(settings, "branch", bad)
    distribution = settings.get("distribution")
    distro_branch = settings.get("distro_default_branch")
    distro_branch = _text(distro_branch) if distro_branch is None or _is_word(distro_branch) else _plain(distro_branch)
    if source is not None:
        if source not in ("distro", "nvidia") or (source == "distro" and distribution != "Debian"):
            errors.append("nvidia_driver_source %s (on %s): nvidia_driver_source is distro (Debian only) or nvidia."
                          % (_json(source), _plain(distribution)))
        elif source == "distro" and branch is not None and branch != distro_branch:
            errors.append("nvidia_driver_branch %s: %s %s's non-free archive has only the %s branch. Leave "
                          "nvidia_driver_branch empty, or set nvidia_driver_source: nvidia to install other branches "
                          "from NVIDIA's repository (or your mirror)."
                          % (_plain(branch), _plain(distribution), _plain(settings.get("distribution_major_version")),
                             _plain(distro_branch or "(none)")))
    if branch is not None and not _BRANCH_RE.match(branch):
        errors.append("nvidia_driver_branch %s: nvidia_driver_branch is a driver branch such as 535 or 570 (empty: "
                      "the OS default)." % _json(branch))
    # The version as given (the plan strips it; a version with spaces is refused here, as before).
    version = settings.get("version")
    version = None if "version" in bad or version is None else str(version)
    if version and (not _DRIVER_VERSION_RE.match(version) or (branch is not None and not version.startswith(
            branch + "."))):
        errors.append("nvidia_driver_version %s (branch %s): nvidia_driver_version is empty or a full version of "
                      "that branch such as 535.261.03." % (_json(version), _json(branch)))
    if settings.get("kernel_modules") not in ("proprietary", "open"):
        errors.append("nvidia_driver_kernel_modules %s: nvidia_driver_kernel_modules is proprietary or open."
                      % _json(settings.get("kernel_modules")))
    if settings.get("fabricmanager") not in ("auto", "enabled", "disabled"):
        errors.append("nvidia_driver_fabricmanager %s: nvidia_driver_fabricmanager is auto, enabled or disabled."
                      % _json(settings.get("fabricmanager")))
    elif not shapes:
        try:
            plan = driver_plan(settings)
        except GpuPlanError as exc:
            errors.append(str(exc))
            plan = {}
        if plan.get("fabricmanager") and not plan.get("fabricmanager_packages"):
            errors.append("%s has NVSwitch-connected GPUs (%s NVSwitch PCI devices, NVLink all-to-all: %s) and needs "
                          "nvidia-fabricmanager, which %s's archive does not ship. Set nvidia_driver_source: nvidia "
                          "(NVIDIA's repository has nvidia-fabricmanager-<branch>), or name the packages in "
                          "nvidia_driver_fabricmanager_packages, or set nvidia_driver_fabricmanager: disabled if this "
                          "is not an NVSwitch system."
                          % (_plain(settings.get("host")), _plain(settings.get("nvswitches")),
                             _plain(settings.get("nvlink_all_to_all")), _plain(distribution)))
    if not isinstance(settings.get("reboot"), bool) or not isinstance(settings.get("reboot_with_jobs"), bool) \
            or _seconds(settings.get("reboot_timeout")) <= 0:
        errors.append("nvidia_driver_reboot and nvidia_driver_reboot_with_jobs must be true or false, and "
                      "nvidia_driver_reboot_timeout a number of seconds above 0 (got %s, %s, %s)."
                      % (_json(settings.get("reboot")), _json(settings.get("reboot_with_jobs")),
                         _json(settings.get("reboot_timeout"))))
    return errors


def cuda_settings_errors(settings):
    """Every problem of the cuda settings, one message each naming the variable, its value and the fix.

    settings: those of cuda_plan, and distribution, distribution_major_version. Never raises; [] when all is well.
    """
    if not isinstance(settings, dict):
        return ["cuda_*: the cuda settings must be a mapping, not %s" % shown(settings)]
    try:
        plan = cuda_plan(settings)
    except GpuPlanError as exc:
        return [str(exc)]
    where = "%s %s" % (_plain(settings.get("distribution")), _plain(settings.get("distribution_major_version")))
    versions = [toolkit["version"] for toolkit in plan["toolkits"]]
    fix = "cuda_versions lists major.minor versions such as 12.4 and cuda_default_version is one of them"
    errors = []
    if not plan["pkg_manager"]:
        errors.append("no package data for %s (roles/cuda/vars; Debian 12/13, Ubuntu 22.04/24.04 and RHEL/Rocky "
                      "8/9 are known): cuda_source and cuda_versions cannot be installed here." % where)
    if plan["source"] not in ("distro", "nvidia"):
        errors.append("cuda_source %s: cuda_source is distro (the distribution's toolkit) or nvidia (NVIDIA's "
                      "repository, nvidia_driver_repo_base_url)." % _json(plan["source"]))
    bad = [version for version in versions if not _CUDA_VERSION_RE.match(version)]
    if not versions or bad:
        errors.append("cuda_versions %s on %s: %s." % (_json(bad or versions), where, fix))
    if versions and plan["default"] not in versions:
        errors.append("cuda_default_version %s is not in cuda_versions %s: %s." % (_json(plan["default"]),
                                                                                   _json(versions), fix))
    if plan["source"] == "distro" and versions != plan["distro_versions"]:
        errors.append("cuda_versions %s: the distro source has exactly %s here - for other or several versions set "
                      "cuda_source: nvidia (NVIDIA's repository, nvidia_driver_repo_base_url)."
                      % (_json(versions), _json(plan["distro_versions"])))
    return errors


def driver_failures(hostvars, hosts, var="__nvidia_driver_failed"):
    """{host: reason} of the hosts whose driver step failed in this run (the rescue of nvidia_driver noted var).

    hostvars: Ansible's hostvars (or a mapping of host to mapping); hosts: the
    hosts to look at, in order. A host that is not there, or does not hold var,
    is left out.
    """
    failures = {}
    for host in hosts if isinstance(hosts, (list, tuple)) else []:
        try:
            if host not in hostvars:
                continue
            mapping = hostvars[host]
            value = None if _is_undefined(mapping) or var not in mapping else mapping[var]
        except (KeyError, TypeError, IndexError, AttributeError):
            continue
        if value is not None and not _is_undefined(value):
            failures[str(host)] = str(value)
    return failures


def _is_undefined(value):
    """Whether value is Jinja's Undefined (hostvars of a variable that is not set), without importing Jinja."""
    return type(value).__name__.endswith("Undefined")


def hardware_state(pci_gpus, image=False, virtualization_role="", virtualization_type="", container_types=None):
    """Whether the GPU roles drive real hardware on this host, and why not when they do not.

    Returns {"hardware": bool, "container": bool, "reason": str}. Kernel modules,
    services that need the driver and nvidia-smi checks run only where a real
    NVIDIA device is there to drive (hardware): never while building a node
    image (image: its nodes load the driver at boot) and never inside a
    container (common/_container.py: virtualization_role guest with a
    virtualization_type of container_types, the collection's list when None):
    no module can be loaded there. reason says why not, in that order, and is
    "" when hardware is true.
    """
    state = container_state(virtualization_role, virtualization_type, container_types)
    container = state["container"]
    gpus = pci_gpus if isinstance(pci_gpus, (list, tuple)) else []
    if image:
        reason = "building a node image (gpuops_image_build): its nodes load the driver at boot"
    elif container:
        reason = state["reason"]
    elif not gpus:
        reason = "no NVIDIA GPU on the PCI bus"
    else:
        reason = ""
    return {"hardware": not reason, "container": container, "reason": reason}


def _stale(wanted, files):
    """stale_entries, its error as GpuPlanError."""
    try:
        return stale_entries(wanted, files)
    except FileStateError as exc:
        raise GpuPlanError(str(exc))


def _installed(versions):
    return [name for name, version in sorted(versions.items()) if version]


def driver_todo(plan, probe, settings):
    """What nvidia_driver must change on a host, read from its plan and one probe; {} of work where nothing differs.

    plan: driver_plan's result. probe: the role's host_probe result (package_versions, package_holds, services,
    files: the nouveau blacklist and, for NVIDIA's apt repository, its key, list and pin files). settings: hold,
    blacklist_nouveau (booleans), blacklist (the wanted file as stale_files reads it: path, content, owner, group,
    mode), nonfree_elsewhere (an apt source other than the role's enables non-free), repo_files (the wanted
    repository files, as blacklist), repo_key_file (NVIDIA's key: present is enough), check_mode.

    Returns {pending, changing, repository, hold, blacklist, enable, any}: pending, a package is missing or at
    another version (the install runs); changing, the driver itself is at another version (drain, reload);
    repository, the package source needs writing; hold, the installed packages not held (apt-mark, dnf
    versionlock); blacklist, "write", "remove" or ""; enable, the services to enable (one whose unit is not
    there yet is left to a real run in check mode); any, whether the change steps run at all.
    """
    if not isinstance(plan, dict) or not isinstance(settings, dict):
        raise GpuPlanError("expected the driver plan and the settings mappings")
    missing_keys = [key for key in ("version_regex", "hold", "versioned", "unversioned") if key not in plan]
    if missing_keys:
        raise GpuPlanError("the driver plan lacks %s (nvidia_driver_plan's result is expected)" % ", ".join(missing_keys))
    probe = probe if isinstance(probe, dict) else {}
    versions = probe.get("package_versions", {})
    holds = probe.get("package_holds", {})
    services = probe.get("services", {})
    files = probe.get("files", [])
    if not all(isinstance(value, dict) for value in (versions, holds, services)) or not isinstance(files, list):
        raise GpuPlanError("the probe's package_versions, package_holds and services must be mappings, its files a list")
    installed = _installed(versions)
    regex = re.compile(plan["version_regex"])
    at_version = [name for name in installed if regex.match(str(versions[name]))]
    held_names = [name for name in plan["hold"] if not name.startswith("@")]
    # A dnf module stream (@nvidia-driver:570-dkms) has no version of its own: it is in place when a package it
    # brings (the hold list) is at the branch.
    streams_missing = ([name for name in plan["versioned"] if name.startswith("@")]
                       if not [name for name in held_names if name in at_version] else [])
    wrong_version = [name for name in plan["versioned"]
                     if not name.startswith("@") and name not in at_version] + streams_missing
    missing = [name for name in list(plan["unversioned"]) + list(plan.get("fabricmanager_packages") or [])
               if name not in installed]
    pending = bool(wrong_version or missing)
    hold = []
    if settings.get("hold"):
        hold = [name for name in held_names if name in installed and not holds.get(name)]
    blacklist = ""
    wanted = settings.get("blacklist") or {}
    paths = [entry.get("path") for entry in files if isinstance(entry, dict)]
    if settings.get("blacklist_nouveau"):
        if _stale([wanted], files):
            blacklist = "write"
    elif wanted.get("path") in paths:
        blacklist = "remove"
    enable = []
    for name in plan.get("services") or []:
        state = services.get(name) or {}
        if (pending or not state.get("enabled")) and (state.get("loaded") or not settings.get("check_mode")):
            enable.append(name)
    source, manager = plan.get("source"), plan.get("pkg_manager")
    repo_files = list(settings.get("repo_files") or [])
    if source == "distro" and manager == "apt":
        # The role writes its own non-free source only where no other apt source enables it.
        repository = not settings.get("nonfree_elsewhere") and bool(_stale(repo_files, files))
    elif source == "nvidia" and manager == "apt":
        repository = settings.get("repo_key_file") not in paths or bool(_stale(repo_files, files))
    else:
        # NVIDIA's dnf repository: ansible.builtin.yum_repository compares its own .repo file each time.
        repository = source == "nvidia"
    todo = {"pending": pending, "changing": bool(wrong_version), "repository": repository, "hold": hold,
            "blacklist": blacklist, "enable": enable}
    todo["any"] = bool(pending or repository or hold or blacklist or enable)
    return todo
