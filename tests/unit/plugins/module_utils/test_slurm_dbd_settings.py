# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_dbd role's settings check (module_utils/slurm/_slurm_dbd_settings.py): every message, all problems at once,
the password never quoted."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_dbd_settings import settings_errors

DEFAULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "slurm_dbd", "defaults",
                        "main.yml")


def settings(**change):
    """The settings the role passes with its defaults, on Debian."""
    with open(DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    keys = ("db_password", "db_name", "db_user", "install_mariadb", "account_groups")
    value = dict((key, defaults["slurm_dbd_" + key]) for key in keys)
    value["os_family"] = "Debian"
    value.update(change)
    return value


PASSWORD = ("slurm_dbd_db_password must be at least 12 characters, from a vault (ansible-vault encrypt_string --name "
            "slurm_dbd_db_password), or empty when the collection installs MariaDB (slurm_dbd_install_mariadb: true): "
            "then one is generated and kept in slurmdbd.conf on the slurmdbd host. With your own database server "
            "(slurm_dbd_install_mariadb: false) give the password of the user you made. ")
NAMES = "slurm_dbd_db_name (%s) and slurm_dbd_db_user (%s) take letters, digits and _."
MARIADB = ("MariaDB is installed for you on Debian and Ubuntu only: elsewhere set slurm_dbd_install_mariadb: false "
           "and point slurm_dbd_db_host at your server. This host's OS family is %s.")
BAD = [
    ({"db_password": "short-one"}, PASSWORD + "It is 9 characters long."),
    ({"db_password": "", "install_mariadb": False}, PASSWORD + "It is empty."),
    ({"db_password": None}, PASSWORD + "It is a NoneType, not text."),
    ({"db_password": 123456789012345}, PASSWORD + "It is a int, not text."),
    ({"db_name": "slurm-acct"}, NAMES % ("slurm-acct", "slurm")),
    ({"db_user": "slurm user"}, NAMES % ("slurm_acct_db", "slurm user")),
    ({"db_name": "x\n"}, NAMES % ("x", "slurm")),
    ({"db_user": 7}, NAMES % ("slurm_acct_db", "7")),
    ({"os_family": "RedHat"}, MARIADB % "RedHat"),
    ({"account_groups": {"ml-vision": "Vision"}},
     "slurm_dbd_account_groups['ml-vision'] must be a Slurm account name (lower case), not 'Vision'"),
]


def test_the_defaults_have_no_errors():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("good", [
    {"db_password": "x" * 12}, {"db_password": "x" * 12, "install_mariadb": False},
    {"os_family": "RedHat", "install_mariadb": False, "db_password": "a-long-password"}, {"db_name": "Slurm_2"},
    {"account_groups": {"ml-vision": "vision", "ml-speech": "speech"}},
])
def test_good_settings_have_no_errors(good):
    assert settings_errors(settings(**good)) == []


@pytest.mark.parametrize("change, message", BAD, ids=[str(index) for index in range(len(BAD))])
def test_each_bad_setting_gives_its_message(change, message):
    assert settings_errors(settings(**change)) == [message]


def test_several_bad_settings_give_every_message():
    errors = settings_errors(settings(db_password="short", db_name="a-b", os_family="Suse"))
    assert errors == [PASSWORD + "It is 5 characters long.", NAMES % ("a-b", "slurm"), MARIADB % "Suse"]


def test_the_password_is_never_shown():
    assert not any("s3cret" in message for message in settings_errors(settings(db_password="s3cret")))


@pytest.mark.parametrize("value", [None, [], "x", 3, {"db_password": object()}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all("slurm_dbd_" in message for message in errors)
