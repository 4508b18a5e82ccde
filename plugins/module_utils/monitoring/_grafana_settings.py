# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is wrong with the grafana role's settings: one message per problem, each naming the grafana_ variable,
the value and the fix (the role's preflight fails with all of them). Never raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    as_bool,
    is_list,
    is_text,
    is_url,
    json_shown,
    matches,
    names,
    plain,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

PREFIX = "grafana: "
SUITE_RE = re.compile(r"[A-Za-z0-9._/-]+")
COMPONENT_RE = re.compile(r"[A-Za-z0-9._-]+")
PACKAGE_RE = re.compile(r"[a-z0-9][a-z0-9.+-]*(=\S+)?")
PORT_RE = re.compile(r"[0-9]{1,5}")
DIR_RE = re.compile(r"/\S*")


def _port(value):
    """grafana_http_port | string is match('^[0-9]{1,5}$') and 1 <= it <= 65535."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 1 <= value <= 65535
    return matches(PORT_RE, value) and 1 <= int(value) <= 65535


def _unique(items):
    """items once each, in order (compared as shown: an item may be any value, nested thousands deep)."""
    seen = {}
    for item in items:
        seen.setdefault(json_shown(item), item)
    return list(seen.values())


def settings_errors(settings):
    """Messages for the grafana settings the role cannot use; [] when all is well.

    settings: apt_repo_url, apt_key_url, apt_suite, apt_component, package, http_port, dashboards,
    dashboard_dir, provisioning_dir, admin_password and prometheus_url (the grafana_ variables), and what the
    play knows of the host: listen (the address Grafana will listen on, "" when there is none), address_later
    (true in --check on a host whose address is known only after the real run), host (its inventory name),
    prometheus (the data source URL the role would write), bundled_dashboards (what the role ships).
    """
    if not isinstance(settings, dict):
        return [PREFIX + "the grafana settings must be a mapping of the grafana_ variables, not %s." % shown(settings)]
    get = settings.get
    errors = []
    if not is_url(get("apt_repo_url")):
        errors.append("grafana_apt_repo_url must be an http:// or https:// URL (Grafana's https://apt.grafana.com or a"
                      " mirror of it), not %s." % json_shown(get("apt_repo_url")))
    if not is_url(get("apt_key_url")):
        errors.append("grafana_apt_key_url must be an http:// or https:// URL (https://apt.grafana.com/gpg.key or a"
                      " mirror of it), not %s." % json_shown(get("apt_key_url")))
    if not matches(SUITE_RE, get("apt_suite")) or not matches(COMPONENT_RE, get("apt_component")):
        errors.append("grafana_apt_suite and grafana_apt_component must be one word each (stable, main), not %s and %s."
                      % (json_shown(get("apt_suite")), json_shown(get("apt_component"))))
    if not matches(PACKAGE_RE, get("package")):
        errors.append("grafana_package must be a package name, with =version to pin one (grafana=11.3.0), not %s."
                      % json_shown(get("package")))
    if not _port(get("http_port")):
        errors.append("grafana_http_port must be a port number from 1 to 65535 (3000 by default), not %s."
                      % json_shown(get("http_port")))
    address_later = as_bool(get("address_later"))
    listen = get("listen")
    if not (is_text(listen) and listen) and not address_later:
        errors.append("grafana_listen_address is empty and %s has no default IPv4 address: set grafana_listen_address"
                      " to the address Grafana should listen on." % plain(get("host")))
    if not is_url(get("prometheus")) and not address_later:
        errors.append("the Prometheus data source URL %s is not an http:// or https:// URL: set grafana_prometheus_url"
                      " (http://prometheus.example:9090)%s."
                      % (json_shown(get("prometheus")), "" if get("prometheus_url") else
                         ", or set gpuops_monitoring_address"))
    errors.extend(_dashboard_errors(get("dashboards"), get("bundled_dashboards")))
    bad_dirs = [key for key in ("dashboard_dir", "provisioning_dir") if not matches(DIR_RE, get(key))]
    if bad_dirs:
        errors.append("grafana_dashboard_dir and grafana_provisioning_dir must be absolute paths without spaces. %s."
                      % "; ".join("grafana_%s is %s" % (key, json_shown(get(key))) for key in bad_dirs))
    password = get("admin_password")
    # The password is never quoted.
    if not is_text(password) or '"""' in password or "\r" in password or "\n" in password:
        errors.append("grafana_admin_password must be one line without three double quotes in a row (or empty,"
                      " for a generated one).")
    return [PREFIX + error for error in errors]


def _dashboard_errors(dashboards, bundled):
    bundled = [name for name in bundled if is_text(name)] if is_list(bundled) else []
    if not is_list(dashboards):
        unknown = dashboards
    else:
        unknown = _unique(name for name in dashboards if not (is_text(name) and name in bundled))
        if not unknown:
            return []
    return ["grafana_dashboards names %s, which the role does not ship: list some of %s."
            % (json_shown(unknown), names(bundled))]
