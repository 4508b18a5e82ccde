# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm built from the site's source tarball: settings, the package cache key and the package names.

Pure functions, no Ansible imports. SchedMD's own Debian packaging (``debian/`` in the release
tarball) builds binary packages named ``slurm-smd-*``; each one declares a conflict with the Debian
package it stands in for (``slurm-smd-slurmd`` with ``slurmd``, ...). The roles name a Slurm package by
its Debian name (the component); SOURCE_NAMES gives the name of the same component among the built
packages, the one rule the install, the maintenance upgrade and pyxis's build use.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_conf import version_tuple


class SlurmSourceError(Exception):
    """Bad input to the source functions."""


INSTALL_FROM = ("distribution", "source")

# Debian's package (source package slurm-wlm) -> the package built from SchedMD's
# debian/ (source package slurm-smd) that replaces it. Debian's plugin and library
# packages all map to slurm-smd, which holds every plugin and libslurmfull.
SOURCE_NAMES = {
    "slurmctld": "slurm-smd-slurmctld",
    "slurmd": "slurm-smd-slurmd",
    "slurmdbd": "slurm-smd-slurmdbd",
    "slurm-client": "slurm-smd-client",
    "slurmrestd": "slurm-smd-slurmrestd",
    "sackd": "slurm-smd-sackd",
    "sview": "slurm-smd-sview",
    "libslurm-dev": "slurm-smd-dev",
    "libpam-slurm-adopt": "slurm-smd-libpam-slurm-adopt",
    "libpmi0": "slurm-smd-libpmi0",
    "libpmi2-0": "slurm-smd-libpmi2-0",
    "libnss-slurm": "slurm-smd-libnss-slurm",
    "slurm-wlm": "slurm-smd",
    "slurm-wlm-basic-plugins": "slurm-smd",
}
_SOURCE_PREFIXES = ("slurm-wlm-", "libslurm")

# The built packages a Slurm host may install, kept in the cache and in each host's
# local repository. The others (sview's GTK interface, the Perl API, the Torque and
# OpenLava wrappers, the documentation) are built by SchedMD's rules but not kept.
KEPT_PACKAGES = ("slurm-smd", "slurm-smd-client", "slurm-smd-slurmctld", "slurm-smd-slurmd", "slurm-smd-slurmdbd",
                 "slurm-smd-dev", "slurm-smd-libpmi0", "slurm-smd-libpmi2-0", "slurm-smd-libpam-slurm-adopt",
                 "slurm-smd-libnss-slurm", "slurm-smd-sackd", "slurm-smd-slurmrestd")

_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
_URL_RE = re.compile(r"^(https?|file)://\S+$")


def package_name(component, install_from):
    """The package of a Slurm component (its Debian name) for install_from (distribution or source)."""
    if install_from != "source":
        return component
    if component in SOURCE_NAMES:
        return SOURCE_NAMES[component]
    if component.startswith(_SOURCE_PREFIXES):
        return "slurm-smd"
    return component


def package_names(components, install_from):
    """package_name of each component, in order, each once."""
    names = []
    for component in components:
        name = package_name(component, install_from)
        if name not in names:
            names.append(name)
    return names


def host_packages(roles, sets, install_from, pmix, gres_autodetect):
    """The Slurm packages one host installs, by its roles, named for install_from.

    roles: {controller, compute, dbd_only, login, sackd, rest, jwt} (booleans); sets: the components of each kind of host
    ({controller, compute, client, pmix, nvml_plugin, rest, jwt}, Debian's names). A controller gets the controller's,
    a compute node the compute node's, a host with only slurmdbd or a login node the client's (and sackd on a
    login node that fetches its configuration with it); the PMIx packages go to every
    host but a slurmdbd-only one when pmix is on; Debian's NVML plugin goes to a compute node with
    gres_autodetect nvml on the distribution's packages (a source build carries its own NVML plugin); slurmrestd
    to a REST host, and the JWT plugin to it and to the hosts that hold the JWT key.
    """
    if not isinstance(roles, dict) or not isinstance(sets, dict):
        raise SlurmSourceError("the host's roles and the package sets must be dictionaries, not %s and %s"
                               % (shown(roles), shown(sets)))
    for kind, value in sets.items():
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise SlurmSourceError("the %s packages must be a list of package names, not %s" % (kind, shown(value)))
    components = []
    if roles.get("controller"):
        components += sets.get("controller", [])
    if roles.get("compute"):
        components += sets.get("compute", [])
    if roles.get("dbd_only") or roles.get("login"):
        components += sets.get("client", [])
    if roles.get("sackd"):
        components += ["sackd"]
    if roles.get("compute") and gres_autodetect == "nvml" and install_from == "distribution":
        components += sets.get("nvml_plugin", [])
    if pmix and not roles.get("dbd_only"):
        components += sets.get("pmix", [])
    if roles.get("rest"):
        components += sets.get("rest", [])
    # auth/jwt: slurmctld and slurmdbd check tokens with it, slurmrestd (SLURM_JWT=daemon) sends them.
    if roles.get("jwt") or roles.get("rest"):
        components += sets.get("jwt", [])
    return package_names(components, install_from)


def component_of(package):
    """The component (Debian's name) of an installed Slurm package of either kind."""
    for component, name in SOURCE_NAMES.items():
        if name == package and name != "slurm-smd":
            return component
    if package == "slurm-smd":
        return "slurm-wlm-basic-plugins"
    return package


def series_of(version):
    """'26.05' of '26.05.3' (the Slurm series a version belongs to)."""
    parts = version_tuple(version) if isinstance(version, str) else None
    if parts is None:
        raise SlurmSourceError("cannot read a Slurm version from %s; give it as '26.05.3'" % shown(version))
    return "%d.%02d" % parts[:2]


def build_key(version, sha256, distribution, major, arch, nvml):
    """The cache key of one build: the tarball (version, checksum), the OS release and architecture, the options.

    slurm-26.05.3-d51a0896d270-debian12-x86_64-nvml: the folder of the Ansible controller's cache and of each
    host's local repository that holds these packages.
    """
    options = "nvml" if nvml else "nonvml"
    parts = ["slurm", str(version), str(sha256)[:12], "%s%s" % (str(distribution).lower(), major), str(arch), options]
    key = "-".join(re.sub(r"[^A-Za-z0-9._]+", "_", part) for part in parts)
    return key


def settings_errors(settings):
    """One message per bad source setting (slurm_install_from and slurm_source_*); empty when all is well."""
    errors = []
    install_from = settings.get("install_from")
    if install_from not in INSTALL_FROM:
        return ["slurm_install_from is %s; use distribution (the OS's Slurm packages) or source (built from "
                "slurm_source_src)." % shown(install_from)]
    if install_from != "source":
        return errors
    src = settings.get("src")
    src_ok = isinstance(src, str) and (src.startswith("/") or bool(_URL_RE.match(src)))
    if not src_ok:
        errors.append("slurm_source_src is %s; give the Slurm release tarball as an http(s) or file URL of the "
                      "site's mirror, or an absolute path on the Ansible controller." % shown(src))
    sha = settings.get("sha256")
    if not isinstance(sha, str) or not _SHA256_RE.match(sha):
        errors.append("slurm_source_sha256 is %s; give the tarball's SHA-256 (64 lower-case hex digits, "
                      "sha256sum prints it)." % shown(sha))
    version = settings.get("version")
    parts = version_tuple(version) if isinstance(version, str) else None
    if parts is None or parts[2] is None:
        errors.append("slurm_source_version is %s; give the tarball's Slurm release, such as '26.05.3'."
                      % shown(version))
    elif src_ok and str(version) not in src.rsplit("/", 1)[-1]:
        errors.append("slurm_source_version %s is not in the tarball's name (%s); set it to the release the "
                      "tarball holds." % (shown(version), shown(src.rsplit("/", 1)[-1])))
    cache = settings.get("cache_dir")
    if not isinstance(cache, str) or not cache.startswith("/"):
        errors.append("slurm_source_cache_dir is %s; give an absolute path on the Ansible controller, where the "
                      "built packages are kept." % shown(cache))
    repo = settings.get("repo_dir")
    if not isinstance(repo, str) or not repo.startswith("/") or repo.rstrip("/") in ("", "/tmp", "/run"):
        errors.append("slurm_source_repo_dir is %s; give an absolute path on the Slurm hosts for their local "
                      "package repository (not / or a tmpfs)." % shown(repo))
    if not isinstance(settings.get("nvml"), bool):
        errors.append("slurm_source_nvml is %s; use true or false." % shown(settings.get("nvml")))
    families = settings.get("os_families") or {}
    other = sorted(host for host, family in families.items() if family != "Debian")
    if other:
        errors.append("slurm_install_from=source builds SchedMD's Debian packages, for Debian 12 and 13; %s %s "
                      "another OS: use slurm_install_from=distribution there."
                      % (", ".join(other[:5]) + (" ..." if len(other) > 5 else ""),
                         "runs" if len(other) == 1 else "run"))
    return errors


def build_plan(hosts, settings, cached):
    """The builds a play needs: one per OS release and architecture of its Slurm hosts.

    hosts: {inventory name: {distribution, major, arch}}, or each host's ansible_facts (distribution,
    distribution_major_version, architecture); cached: the keys the Ansible controller's cache
    holds. Returns {'keys': {host: key}, 'builds': [{key, host}]} where each build is done on the first host
    (in name order) of its key, or on settings['build_host'] when that host has the key.
    """
    keys = {}
    for host in sorted(hosts):
        facts = hosts[host] or {}
        keys[host] = build_key(settings.get("version"), settings.get("sha256"), facts.get("distribution"),
                               facts.get("major", facts.get("distribution_major_version")),
                               facts.get("arch", facts.get("architecture")), settings.get("nvml"))
    builds = []
    wanted = settings.get("build_host") or ""
    for key in sorted(set(keys.values())):
        if key in (cached or []):
            continue
        members = [host for host in sorted(keys) if keys[host] == key]
        builds.append({"key": key, "host": wanted if wanted in members else members[0]})
    return {"keys": keys, "builds": builds}


def kept_files(listing):
    """The .deb files of KEPT_PACKAGES among file names (the build's output), sorted; no debug packages."""
    files = []
    for name in listing or []:
        base = str(name).rsplit("/", 1)[-1]
        match = re.match(r"^([a-z0-9.+-]+)_[^_]+_[a-z0-9]+\.deb$", base)
        if match and match.group(1) in KEPT_PACKAGES:
            files.append(str(name))
    return sorted(files)


# No error of Python's own leaves these: anything no rule foresaw becomes SlurmSourceError.
settings_errors = guarded(SlurmSourceError, 'Slurm source settings')(settings_errors)
build_plan = guarded(SlurmSourceError, 'Slurm source build plan')(build_plan)
build_key = guarded(SlurmSourceError, 'Slurm source build key')(build_key)
series_of = guarded(SlurmSourceError, 'Slurm version')(series_of)
