# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for Slurm built from the site's source tarball (docs: slurm_source_*.yml; logic:
module_utils/slurm/_slurm_source.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_source


def _run(function, *args):
    try:
        return function(*args)
    except _slurm_source.SlurmSourceError as exc:
        raise AnsibleFilterError(str(exc))


def slurm_source_errors(settings):
    """One message per bad slurm_install_from / slurm_source_* setting; [] when all is well."""
    if not isinstance(settings, dict):
        return ["the Slurm source settings must be a dictionary"]
    return _run(_slurm_source.settings_errors, settings)


def slurm_source_plan(hosts, settings, cached=None):
    """{'keys': {host: cache key}, 'builds': [{key, host}]} for the play's Slurm hosts."""
    return _run(_slurm_source.build_plan, hosts, settings, cached or [])


def slurm_package_names(components, install_from):
    """The packages of Slurm components (Debian's names) for install_from (distribution or source)."""
    if isinstance(components, str):
        return _slurm_source.package_name(components, install_from)
    return _run(_slurm_source.package_names, list(components or []), install_from)


def slurm_host_packages(roles, sets, install_from, pmix, gres_autodetect):
    """The Slurm packages one host installs, by its roles (controller, compute, dbd_only)."""
    return _run(_slurm_source.host_packages, roles, sets, install_from, bool(pmix), gres_autodetect)


def slurm_package_component(package):
    """The component (Debian's package name) of an installed Slurm package of either kind."""
    return _slurm_source.component_of(str(package))


def slurm_source_kept(files):
    """The built .deb files a Slurm host may install, sorted."""
    return _run(_slurm_source.kept_files, files)


class FilterModule(object):
    """Filters for Slurm built from source."""

    def filters(self):
        return {
            "slurm_source_errors": slurm_source_errors,
            "slurm_source_plan": slurm_source_plan,
            "slurm_package_names": slurm_package_names,
            "slurm_host_packages": slurm_host_packages,
            "slurm_source_kept": slurm_source_kept,
            "slurm_package_component": slurm_package_component,
        }
