# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The directory role's filters: its settings, SSSD's configuration, the preflight's readings, and the Slurm
accounts that follow directory groups.

Documentation in directory_*.yml beside this file; logic in module_utils/site/_directory.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _directory


def _guard(name, func, *args):
    try:
        return func(*[plain_data(arg) for arg in args])
    except _directory.DirectoryError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def directory_settings_errors(settings):
    """[] or a message per wrong directory_* setting, naming the fix."""
    return _guard("directory_settings_errors", _directory.settings_errors, settings)


def directory_sssd_conf(settings, bind_password=None, ca_path=_directory.CA_PATH):
    """The text of /etc/sssd/sssd.conf (without the bind password when it is not given)."""
    return _guard("directory_sssd_conf", _directory.sssd_conf, settings, bind_password, ca_path)


def directory_ldapsearch_argv(uri, base_dn, bind_dn=""):
    """The preflight's ldapsearch of the base DN on one server."""
    return _guard("directory_ldapsearch_argv", _directory.ldapsearch_argv, uri, base_dn, bind_dn)


def directory_ldapsearch_result(run, base_dn, uri=None):
    """{ok, code, message} of one registered ldapsearch of the base DN (the server: uri, else the loop's item)."""
    run = plain_data(run)
    if not isinstance(run, dict):
        raise AnsibleFilterError("directory_ldapsearch_result: give the registered ldapsearch result")
    uri = uri if uri is not None else run.get("item")
    if not isinstance(uri, str):
        raise AnsibleFilterError("directory_ldapsearch_result: name the server (uri), or give a loop's result")
    return _guard("directory_ldapsearch_result", _directory.ldapsearch_result, uri, base_dn, run.get("rc"),
                  run.get("stdout"), run.get("stderr"))


def directory_resolved(run, user, min_id=1000):
    """{ok, uid, gid, message} of a registered getent passwd of the test user."""
    run = plain_data(run)
    if not isinstance(run, dict):
        raise AnsibleFilterError("directory_resolved: give the registered getent result")
    return _guard("directory_resolved", _directory.resolved, user, run.get("stdout") or "", min_id)


def directory_certificate_result(run):
    """{ok, message} of a registered openssl x509 -noout -subject -enddate -checkend 0 of the CA."""
    run = plain_data(run)
    if not isinstance(run, dict):
        raise AnsibleFilterError("directory_certificate_result: give the registered openssl result")
    return _directory.certificate_result(run.get("rc"), run.get("stdout"), run.get("stderr"))


def directory_accounts(accounts, mapping, group_run):
    """{accounts: slurm_dbd_accounts with the directory groups' members, missing: groups not found}."""
    run = plain_data(group_run)
    if not isinstance(run, dict):
        raise AnsibleFilterError("directory_accounts: give the registered getent group result")
    members = _guard("directory_accounts", _directory.account_members, mapping, run.get("stdout") or "")
    return {"accounts": _guard("directory_accounts", _directory.merge_accounts, accounts, members["accounts"]),
            "missing": members["missing"]}


class FilterModule(object):
    """Directory filters."""

    def filters(self):
        return {"directory_settings_errors": directory_settings_errors, "directory_sssd_conf": directory_sssd_conf,
                "directory_ldapsearch_argv": directory_ldapsearch_argv,
                "directory_ldapsearch_result": directory_ldapsearch_result, "directory_resolved": directory_resolved,
                "directory_certificate_result": directory_certificate_result,
                "directory_accounts": directory_accounts}
