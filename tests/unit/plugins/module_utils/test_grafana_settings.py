# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The grafana role's settings check (module_utils/monitoring/_grafana_settings.py): every message, all problems at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._grafana_settings import settings_errors

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "grafana")


def _bundled():
    with open(os.path.join(ROLE, "vars", "main.yml")) as handle:
        return yaml.safe_load(handle)["__grafana_bundled_dashboards"]


def _defaults():
    with open(os.path.join(ROLE, "defaults", "main.yml")) as handle:
        return yaml.safe_load(handle)


def settings(**change):
    """The settings the role passes with its defaults, on a host with an address."""
    defaults = _defaults()
    value = dict((key[len("grafana_"):], defaults[key]) for key in (
        "grafana_apt_repo_url", "grafana_apt_key_url", "grafana_apt_suite", "grafana_apt_component", "grafana_package",
        "grafana_http_port", "grafana_prometheus_url", "grafana_dashboards", "grafana_dashboard_dir",
        "grafana_provisioning_dir", "grafana_admin_password"))
    value.update(listen="10.0.0.2", address_later=False, host="mon", prometheus="http://10.0.0.2:9090",
                 bundled_dashboards=_bundled())
    value.update(change)
    return value


SHIPPED = "gpuops-cluster-overview.json, gpuops-gpus.json, gpuops-accounts.json, gpuops-slurm.json"
BAD = [
    ({"apt_repo_url": "ftp://mirror.example.internal/grafana"},
     'grafana: grafana_apt_repo_url must be an http:// or https:// URL (Grafana\'s https://apt.grafana.com or a '
     'mirror of it), not "ftp://mirror.example.internal/grafana".'),
    ({"apt_repo_url": 5}, "grafana: grafana_apt_repo_url must be an http:// or https:// URL (Grafana's "
                          "https://apt.grafana.com or a mirror of it), not 5."),
    ({"apt_key_url": "apt.grafana.com/gpg.key"},
     'grafana: grafana_apt_key_url must be an http:// or https:// URL (https://apt.grafana.com/gpg.key or a mirror '
     'of it), not "apt.grafana.com/gpg.key".'),
    ({"apt_suite": "stable main"}, 'grafana: grafana_apt_suite and grafana_apt_component must be one word each '
                                   '(stable, main), not "stable main" and "main".'),
    ({"apt_component": "main/x"}, 'grafana: grafana_apt_suite and grafana_apt_component must be one word each '
                                  '(stable, main), not "stable" and "main/x".'),
    ({"package": "Grafana"}, 'grafana: grafana_package must be a package name, with =version to pin one '
                             '(grafana=11.3.0), not "Grafana".'),
    ({"http_port": 70000}, "grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), "
                           "not 70000."),
    ({"http_port": 0}, "grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), not 0."),
    ({"http_port": "30a"}, 'grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), '
                           'not "30a".'),
    ({"http_port": True}, "grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), "
                          "not true."),
    ({"listen": ""}, "grafana: grafana_listen_address is empty and mon has no default IPv4 address: set "
                     "grafana_listen_address to the address Grafana should listen on."),
    ({"prometheus": "prometheus:9090", "prometheus_url": "prometheus:9090"},
     'grafana: the Prometheus data source URL "prometheus:9090" is not an http:// or https:// URL: set '
     "grafana_prometheus_url (http://prometheus.example:9090)."),
    ({"prometheus": "10.0.0.2:9090"},
     'grafana: the Prometheus data source URL "10.0.0.2:9090" is not an http:// or https:// URL: set '
     "grafana_prometheus_url (http://prometheus.example:9090), or set gpuops_monitoring_address."),
    ({"dashboards": ["gpuops-gpus.json", "gpuops-nope.json", "gpuops-nope.json"]},
     'grafana: grafana_dashboards names ["gpuops-nope.json"], which the role does not ship: list some of '
     + SHIPPED + "."),
    ({"dashboards": "gpuops-gpus.json"}, 'grafana: grafana_dashboards names "gpuops-gpus.json", which the role does '
                                         'not ship: list some of ' + SHIPPED + "."),
    ({"dashboard_dir": "srv/dash"}, "grafana: grafana_dashboard_dir and grafana_provisioning_dir must be absolute "
                                    'paths without spaces. grafana_dashboard_dir is "srv/dash".'),
    ({"provisioning_dir": "/etc/my grafana"}, "grafana: grafana_dashboard_dir and grafana_provisioning_dir must be "
                                              "absolute paths without spaces. grafana_provisioning_dir is "
                                              '"/etc/my grafana".'),
    ({"admin_password": 'a"""b'}, "grafana: grafana_admin_password must be one line without three double quotes in "
                                  "a row (or empty, for a generated one)."),
    ({"admin_password": "secret\nline"}, "grafana: grafana_admin_password must be one line without three double "
                                         "quotes in a row (or empty, for a generated one)."),
    ({"admin_password": 12345}, "grafana: grafana_admin_password must be one line without three double quotes in a "
                                "row (or empty, for a generated one)."),
]


def test_the_defaults_have_no_errors():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("good", [
    {"http_port": "3300"}, {"http_port": 65535}, {"apt_repo_url": "http://mirror.example.internal/grafana/"},
    {"package": "grafana=11.3.0"}, {"apt_suite": "beta"}, {"dashboards": []}, {"admin_password": "x" * 40},
    {"prometheus_url": "https://prom.example.internal:9443/prom",
     "prometheus": "https://prom.example.internal:9443/prom"},
])
def test_good_settings_have_no_errors(good):
    assert settings_errors(settings(**good)) == []


@pytest.mark.parametrize("change, message", BAD, ids=[str(index) for index in range(len(BAD))])
def test_each_bad_setting_gives_its_message(change, message):
    assert settings_errors(settings(**change)) == [message]


def test_the_password_is_never_shown():
    assert "hunter2" not in " ".join(settings_errors(settings(admin_password='hunter2"""\n')))


def test_in_check_mode_before_the_address_is_known_nothing_is_said_of_it():
    assert settings_errors(settings(listen="", prometheus="http://:", address_later=True)) == []


def test_several_bad_settings_give_every_message():
    change = {}
    for one, _message in BAD[:1] + BAD[2:4] + BAD[5:7] + BAD[10:12] + BAD[13:14] + BAD[15:16] + BAD[17:18]:
        change.update(one)
    expected = [message for _change, message in BAD[:1] + BAD[2:4] + BAD[5:7] + BAD[10:12] + BAD[13:14] + BAD[15:16]
                + BAD[17:18]]
    assert settings_errors(settings(**change)) == expected


@pytest.mark.parametrize("value", [None, [], "grafana", 3, {"apt_repo_url": object()}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all(message.startswith("grafana: ") and "grafana_" in message for message in errors)


def test_a_long_list_of_bundled_dashboards_is_cut():
    errors = settings_errors(settings(dashboards=["x"], bundled_dashboards=["d%d" % index for index in range(12)]))
    assert errors == ['grafana: grafana_dashboards names ["x"], which the role does not ship: list some of d0, d1, d2, '
                      "d3, d4, d5, d6, d7, d8, d9 and 2 more."]
