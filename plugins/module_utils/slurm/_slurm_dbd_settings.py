# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is wrong with the slurm_dbd role's settings: one message per problem, each naming the slurm_dbd_ variable
and the fix (the role's preflight fails with all of them). The password is never quoted, only its length. Never
raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    as_bool,
    is_text,
    matches,
    plain,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown
from ansible_collections.gpuops.cluster.plugins.module_utils.site._directory import account_group_errors

NAME_RE = re.compile(r"[A-Za-z0-9_]+")
PASSWORD_MIN = 12
# Where the role installs MariaDB itself.
MARIADB_OS_FAMILIES = ("Debian",)


def _password_problem(password, install_mariadb):
    """Why the password cannot be used, or None."""
    if not is_text(password):
        return "It is a %s, not text." % type(password).__name__
    if len(password) >= PASSWORD_MIN or (not password and install_mariadb):
        return None
    return "It is empty." if not password else "It is %d characters long." % len(password)


def settings_errors(settings):
    """Messages for the slurm_dbd settings the role cannot use; [] when all is well.

    settings: db_password, db_name, db_user, install_mariadb, account_groups (the slurm_dbd_ variables without the
    prefix) and os_family (the host's, from its facts).
    """
    if not isinstance(settings, dict):
        return ["the slurm_dbd settings must be a mapping of the slurm_dbd_ variables, not %s." % shown(settings)]
    get = settings.get
    install_mariadb = as_bool(get("install_mariadb"))
    errors = []
    problem = _password_problem(get("db_password"), install_mariadb)
    if problem:
        errors.append("slurm_dbd_db_password must be at least 12 characters, from a vault (ansible-vault "
                      "encrypt_string --name slurm_dbd_db_password), or empty when the collection installs MariaDB "
                      "(slurm_dbd_install_mariadb: true): then one is generated and kept in slurmdbd.conf on the "
                      "slurmdbd host. With your own database server (slurm_dbd_install_mariadb: false) give the "
                      "password of the user you made. " + problem)
    if not matches(NAME_RE, get("db_name")) or not matches(NAME_RE, get("db_user")):
        errors.append("slurm_dbd_db_name (%s) and slurm_dbd_db_user (%s) take letters, digits and _."
                      % (plain(get("db_name")), plain(get("db_user"))))
    errors += account_group_errors(get("account_groups") if "account_groups" in settings else {})
    if install_mariadb and get("os_family") not in MARIADB_OS_FAMILIES:
        errors.append("MariaDB is installed for you on Debian and Ubuntu only: elsewhere set "
                      "slurm_dbd_install_mariadb: false and point slurm_dbd_db_host at your server. This host's OS "
                      "family is %s." % plain(get("os_family")))
    return errors
