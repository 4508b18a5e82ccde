# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch_env role's settings as data: what is wrong with them (one message per problem, each naming the
pytorch_env_ variable, its value and the fix; never raises), the PIP_* environment pip runs with, the
directories the role makes, and what an environment holds and lacks from one host_probe (venv_state)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    as_bool,
    is_list,
    is_text,
    json_shown,
    matches,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

PREFIX = "pytorch_env: "
VERSION_RE = re.compile(r"[0-9]+\.[0-9]+(\.[0-9]+)?")
BUILD_RE = re.compile(r"cpu|cu[0-9]{3}|rocm[0-9.]+")
PACKAGE_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LISTS = ("find_links", "base_packages", "extra_packages")
TEXTS = (("index_url", "a URL, or empty for PyTorch's index for the build"),
         ("extra_index_url", "a URL, or empty for none"),
         ("pip_cert", "the path of a CA bundle on the hosts, or empty for pip's own"))


class PytorchEnvError(Exception):
    """Settings the preflight refuses, given to a plan anyway."""


def _given(value):
    return (is_text(value) or is_list(value)) and len(value) > 0


def _version(value):
    """pytorch_env_version | string is match(...): a float such as 2.13 reads as its digits."""
    if isinstance(value, float) and not isinstance(value, bool):
        value = repr(value)
    return matches(VERSION_RE, value)


def _absolute(value):
    return is_text(value) and value.startswith("/")


def settings_errors(settings):
    """Messages for the pytorch_env settings the role cannot use; [] when all is well.

    settings: version, build, root, offline, index_url, extra_index_url, find_links, pip_cert, base_packages,
    extra_packages, system_packages, system_packages_dir (the pytorch_env_ variables without the prefix).
    """
    if not isinstance(settings, dict):
        return [PREFIX + "the settings must be a mapping of the pytorch_env_ variables, not %s." % shown(settings)]
    get = settings.get
    problems = []
    if not _version(get("version")):
        problems.append(("version", "pytorch_env_version is a release such as 2.13.0"))
    if not matches(BUILD_RE, get("build")):
        problems.append(("build", "pytorch_env_build is cpu or a CUDA flavour such as cu124"))
    if not _absolute(get("root")):
        problems.append(("root", "pytorch_env_root is an absolute path"))
    for key, what in TEXTS:
        if not is_text(get(key)):
            problems.append((key, "pytorch_env_%s is %s" % (key, what)))
    for key in LISTS:
        if not is_list(get(key)) or not all(is_text(item) for item in get(key)):
            problems.append((key, "pytorch_env_%s is a list of strings" % key))
    packages = get("system_packages")
    if not is_list(packages) or not all(matches(PACKAGE_NAME_RE, name) for name in packages):
        problems.append(("system_packages", "pytorch_env_system_packages is a list of Python package names (such as "
                                            "mpi4py, not python3-mpi4py)"))
    if not _absolute(get("system_packages_dir")):
        problems.append(("system_packages_dir", "pytorch_env_system_packages_dir is an absolute path"))
    errors = ["pytorch_env_%s is %s. Fix: %s." % (key, json_shown(get(key)), fix) for key, fix in problems]
    if as_bool(get("offline")) and not _given(get("find_links")) and not _given(get("index_url")):
        errors.append("pytorch_env_offline is true with pytorch_env_find_links %s and pytorch_env_index_url %s. Fix: "
                      "pytorch_env_offline needs pytorch_env_find_links (a wheelhouse on the hosts) or "
                      "pytorch_env_index_url (a local index)."
                      % (json_shown(get("find_links")), json_shown(get("index_url"))))
    return [PREFIX + error for error in errors]


def pip_env(settings, index):
    """The PIP_* variables pip runs with (index: the index URL the role uses unless offline without one)."""
    errors = settings_errors(settings)
    if errors:
        raise PytorchEnvError(" ".join(errors))
    env = {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if as_bool(settings["offline"]) and not settings["index_url"]:
        env["PIP_NO_INDEX"] = "1"
    else:
        env["PIP_INDEX_URL"] = index.strip() if is_text(index) else ""
    if settings["extra_index_url"]:
        env["PIP_EXTRA_INDEX_URL"] = settings["extra_index_url"]
    if settings["find_links"]:
        env["PIP_FIND_LINKS"] = " ".join(str(link) for link in settings["find_links"])
    if settings["pip_cert"]:
        env["PIP_CERT"] = settings["pip_cert"]
    return env


def directories(paths):
    """Every directory level of the absolute paths below the top one (/opt), parents first, each once."""
    if not is_list(paths) or not all(_absolute(path) for path in paths):
        raise PytorchEnvError("expected a list of absolute paths, not %s" % shown(paths))
    found = []
    for path in paths:
        parts = path.strip("/").split("/")
        for count in range(2, len(parts) + 1):
            directory = "/" + "/".join(parts[:count])
            if directory not in found:
                found.append(directory)
    return found


# A distribution pip installed: <name>-<version>.dist-info (the name with
# runs of -_. as _, the version without -), as the wheel and packaging
# specifications write it.
DIST_INFO_RE = re.compile(r"^(?P<name>[^/]+)-(?P<version>[^-/]+)\.dist-info$")


def canonical_name(name):
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _satisfied(requirement, installed):
    """True or False for a requirement pip would read the same way from the names and versions alone;
    None when only pip can tell (a URL, a marker, extras, a string packaging cannot read, no packaging)."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
        from packaging.version import InvalidVersion
    except ImportError:
        return None
    try:
        wanted = Requirement(requirement)
    except InvalidRequirement:
        return None
    if wanted.url or wanted.marker or wanted.extras:
        return None
    version = installed.get(canonical_name(wanted.name))
    if version is None:
        return False
    if not wanted.specifier:
        return True
    try:
        return wanted.specifier.contains(version, prereleases=True)
    except InvalidVersion:
        return None


def venv_state(files, env_dir, requirements, system_packages, system_dir):
    """What the virtual environment at env_dir holds and lacks, from one host_probe's files.

    files: host_probe's RV files for the paths and patterns the role asks for (the environment's
    lib/python3.*/site-packages, the *.dist-info in it, the links of system_packages in it, and
    system_dir/<package> for each).
    Returns {"purelib": the site-packages path, or "" when there is none or more than one,
    "installed": {canonical name: version}, "missing": the requirement strings pip has to install
    (every one without an environment; one only pip can judge counts as missing, so pip decides),
    "links": the system packages the host has that are not linked into the environment,
    "absent": the system packages the host lacks}.
    """
    if not is_list(files) or not all(isinstance(entry, dict) and is_text(entry.get("path")) for entry in files):
        raise PytorchEnvError("expected host_probe's files (a list of entries with a path), not %s" % shown(files))
    if not _absolute(env_dir):
        raise PytorchEnvError("expected the environment's absolute path, not %s" % shown(env_dir))
    for name, value in (("requirements", requirements), ("system_packages", system_packages)):
        if not is_list(value) or not all(is_text(item) for item in value):
            raise PytorchEnvError("expected %s as a list of strings, not %s" % (name, shown(value)))
    by_path = dict((entry["path"], entry) for entry in files)
    site_re = re.compile("^" + re.escape(env_dir.rstrip("/")) + r"/lib/python3\.[0-9]+/site-packages$")
    sites = sorted(path for path, entry in by_path.items() if site_re.match(path) and entry.get("isdir"))
    purelib = sites[0] if len(sites) == 1 else ""
    installed = {}
    if purelib:
        for path in by_path:
            if path.startswith(purelib + "/"):
                found = DIST_INFO_RE.match(path[len(purelib) + 1:])
                if found:
                    installed[canonical_name(found.group("name"))] = found.group("version")
    missing = [item for item in requirements if not purelib or _satisfied(item, installed) is not True]
    links = []
    absent = []
    for package in system_packages:
        source = by_path.get(system_dir.rstrip("/") + "/" + package)
        if source is None:
            absent.append(package)
            continue
        link = by_path.get(purelib + "/" + package) if purelib else None
        want = source.get("lnk_source") or source["path"]
        if not (link and link.get("islnk") and link.get("lnk_source") == want):
            links.append(package)
    return {"purelib": purelib, "installed": installed, "missing": missing, "links": links, "absent": absent}
