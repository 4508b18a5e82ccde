# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm's own interfaces: the REST API (slurmrestd with JWT) and slurmctld's native metrics, by release.

Pure functions the cluster model (_slurm_model.build_model) calls once per
play: the settings' checks (each message names the variable and the fix),
the slurm.conf keys they add (AuthAltTypes, AuthAltParameters, MetricsType,
MetricsParameters), and slurmrestd's command line.

Where the facts come from
-------------------------
* The data_parser plugins of each release: the plugin directories of the
  release's source tarball (26.05.3: src/plugins/data_parser/v0.0.42 to
  v0.0.45), the libraries Debian 13's slurmrestd 24.11.5 package installs
  (data_parser_v0_0_40.so to v0_0_42.so), and the CHANGELOG files of the
  26.05.3 tarball, which add one version per release and keep three (from
  24.05, where v0.0.41 came; 26.05 keeps four).
* slurmrestd's options (``-a``, ``-s``, ``-d``), SLURMRESTD_LISTEN, and its
  refusal to run as root or as SlurmUser: slurmrestd(8) and
  src/slurmrestd/slurmrestd.c of 26.05.3.
* AuthAltTypes, AuthAltParameters (jwt_key, max_token_lifespan,
  disable_token_creation), MetricsType, MetricsParameters and PrivateData:
  slurm.conf(5) and the JWT and metrics guides (doc/html/jwt.shtml,
  metrics.shtml) of 26.05.3. Native metrics came with 25.11; a standby
  controller answers /metrics with HTTP 303 to the first controller.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded, shown


class SlurmRestError(Exception):
    """Input the REST and metrics rules cannot use (a bug in the role's wiring, not a user error)."""


# The data_parser plugins each release's slurmrestd has (its OpenAPI versions, /slurm/<version>/...).
DATA_PARSERS = {
    "24.05": ("v0.0.39", "v0.0.40", "v0.0.41"),
    "24.11": ("v0.0.40", "v0.0.41", "v0.0.42"),
    "25.05": ("v0.0.41", "v0.0.42", "v0.0.43"),
    "25.11": ("v0.0.42", "v0.0.43", "v0.0.44"),
    "26.05": ("v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"),
}
REST_SINCE = (24, 5)
# slurmctld serves /metrics/<endpoint> on SlurmctldPort from this release (MetricsType=metrics/openmetrics).
NATIVE_METRICS_SINCE = (25, 11)
# The endpoints Prometheus scrapes; /metrics/jobs-users-accts is left out: a series per user and account,
# unbounded (the metrics guide advises against storing it), and the Slurm exporter has jobs per account.
NATIVE_ENDPOINTS = ("jobs", "nodes", "partitions", "scheduler")
METRICS_TYPE = "metrics/openmetrics"
JWT_KEY_BYTES = 32
_LOCAL_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
_DATA_PARSER_RE = re.compile(r"^v0\.0\.[0-9]{2}$")
_PORT_RE = re.compile(r"^[0-9]{1,5}$")


def _release(series):
    """(major, minor) of a series or version ('26.05', '26.05.3'), or None."""
    if not isinstance(series, str):
        return None
    match = re.match(r"^([0-9]{2})\.([0-9]{2})(?:\.|$)", series.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def _series_text(release):
    return "%02d.%02d" % release


def data_parsers(series):
    """The data_parser plugins of the release series belongs to, or None for a release this table lacks."""
    release = _release(series)
    if release is None:
        return None
    found = DATA_PARSERS.get(_series_text(release))
    return list(found) if found else None


def native_metrics_available(series):
    """Whether the release has slurmctld's native metrics (25.11 and later)."""
    release = _release(series)
    return release is not None and release >= NATIVE_METRICS_SINCE


def _listen_item(item):
    """(is local, error) of one SLURMRESTD_LISTEN entry: host:port, [v6]:port, :port or unix:/path."""
    if not isinstance(item, str) or not item.strip() or "," in item or any(char.isspace() for char in item):
        return False, "%s is not an address:port or unix:/path" % shown(item, 60)
    if item.startswith("unix:"):
        path = item[len("unix:"):]
        if not path.startswith("/"):
            return False, "%s: a socket is unix:/absolute/path" % shown(item, 60)
        return True, None
    if item.startswith("["):
        host, _sep, port = item[1:].partition("]:")
        host = "[%s]" % host
    else:
        host, _sep, port = item.rpartition(":")
    if not _sep or not _PORT_RE.match(port) or not 0 < int(port) < 65536:
        return False, "%s has no port (1-65535): give host:port, [v6]:port or unix:/path" % shown(item, 60)
    bare = host.strip("[]")
    if host and bare not in _LOCAL_NAMES:
        try:
            ipaddress.ip_address(bare)
        except ValueError:
            if not re.match(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$", bare):
                return False, "%s: %s is not a host name or an IP address" % (shown(item, 60), shown(host, 40))
    return bare in _LOCAL_NAMES, None


def _mapping(value):
    return value if isinstance(value, dict) else {}


def rest_errors(rest, series):
    """The messages for slurm_rest_* and slurm_jwt_* settings this release cannot take ([] when they are fine).

    rest: {enabled, hosts, listen, allow_remote, data_parsers, jwt_key_length, jwt_max_token_lifespan,
    user_tokens}. series: the Slurm release the cluster runs (the model's)."""
    rest = _mapping(rest)
    errors = []
    if not isinstance(rest.get("enabled", False), bool):
        return ["slurm_rest_enabled is %s; give true or false." % shown(rest.get("enabled"), 40)]
    if not rest.get("enabled"):
        return []
    release = _release(series)
    if release is None or release < REST_SINCE:
        errors.append("slurm_rest_enabled is true, but this cluster runs Slurm %s: the collection runs slurmrestd from "
                      "24.05 on, where its data_parser plugins are known (%s). Install a newer Slurm "
                      "(slurm_install_from: source) or set slurm_rest_enabled: false."
                      % (series or "of an unknown release", ", ".join(sorted(DATA_PARSERS))))
    listen = rest.get("listen")
    if not isinstance(listen, list) or not listen:
        errors.append("slurm_rest_listen is %s; give a list of host:port or unix:/path entries, such as "
                      "[localhost:6820]." % shown(listen, 60))
        listen = []
    remote = []
    for item in listen:
        local, error = _listen_item(item)
        if error:
            errors.append("slurm_rest_listen: %s." % error)
        elif not local:
            remote.append(item)
    if remote and rest.get("allow_remote") is not True:
        errors.append("slurm_rest_listen has %s, an address other hosts reach: slurmrestd has no TLS of its own and "
                      "takes any valid token. Listen on localhost or a unix:/path socket and put a TLS proxy in front "
                      "(docs/operations.md, The REST API), or set slurm_rest_allow_remote: true to listen there "
                      "anyway." % ", ".join(remote))
    if not isinstance(rest.get("allow_remote", False), bool):
        errors.append("slurm_rest_allow_remote is %s; give true or false." % shown(rest.get("allow_remote"), 40))
    wanted = rest.get("data_parsers")
    if not isinstance(wanted, list) or not all(isinstance(item, str) for item in wanted):
        errors.append("slurm_rest_data_parsers is %s; give a list of versions such as [v0.0.44], or [] for every "
                      "one the release has." % shown(wanted, 60))
    else:
        known = data_parsers(series)
        bad = [item for item in wanted if not _DATA_PARSER_RE.match(item)]
        if bad:
            errors.append("slurm_rest_data_parsers: %s is not a data_parser version (v0.0.NN)." % shown(bad[0], 40))
        elif known is None and not wanted and release is not None and release >= REST_SINCE:
            errors.append("Slurm %s is newer than the collection's table of data_parser plugins (%s): name the "
                          "versions it has in slurm_rest_data_parsers (ls the slurm plugin directory for "
                          "data_parser_v0_0_*.so)." % (series, ", ".join(sorted(DATA_PARSERS))))
        elif known is not None:
            lacking = [item for item in wanted if item not in known]
            if lacking:
                errors.append("slurm_rest_data_parsers names %s, which Slurm %s lacks: it has %s. Choose among those, "
                              "or [] for all of them." % (", ".join(lacking), _series_text(release), ", ".join(known)))
    lifespan = rest.get("jwt_max_token_lifespan")
    if isinstance(lifespan, bool) or not isinstance(lifespan, int) or not 60 <= lifespan <= 31536000:
        errors.append("slurm_jwt_max_token_lifespan is %s; give the most seconds a token from scontrol token may "
                      "live, from 60 to 31536000 (a year)." % shown(lifespan, 40))
    if not isinstance(rest.get("user_tokens", True), bool):
        errors.append("slurm_jwt_user_tokens is %s; give true or false." % shown(rest.get("user_tokens"), 40))
    length = rest.get("jwt_key_length", 0)
    if isinstance(length, int) and 0 < length < JWT_KEY_BYTES:
        errors.append("slurm_jwt_key holds %d bytes: an HS256 key needs at least %d. Make one with "
                      "openssl rand -base64 48 and keep it in vault." % (length, JWT_KEY_BYTES))
    if not isinstance(rest.get("hosts"), list) or not rest.get("hosts"):
        errors.append("slurmrestd has no host: put one in the slurm_rest group (slurm_rest_group), or keep a "
                      "controller in the inventory (the first one runs it by default).")
    return errors


def rest_conf(rest, key_path):
    """slurm.conf's (and slurmdbd.conf's) AuthAltTypes and AuthAltParameters for the REST API, {} when it is off."""
    rest = _mapping(rest)
    if rest.get("enabled") is not True:
        return {}
    params = ["jwt_key=%s" % key_path, "max_token_lifespan=%s" % rest.get("jwt_max_token_lifespan")]
    if rest.get("user_tokens") is False:
        params.append("disable_token_creation")
    return {"AuthAltTypes": "auth/jwt", "AuthAltParameters": ",".join(params)}


def rest_command(rest, series, accounting):
    """slurmrestd's options (after the program): JWT only, the OpenAPI plugins, the data parsers."""
    rest = _mapping(rest)
    wanted = rest.get("data_parsers") if isinstance(rest.get("data_parsers"), list) else []
    parsers = list(wanted) or data_parsers(series) or []
    plugins = ["slurmctld"] + (["slurmdbd"] if accounting else [])
    out = ["-a", "rest_auth/jwt", "-s", ",".join(plugins)]
    if parsers:
        out += ["-d", ",".join(parsers)]
    return " ".join(out)


def rest_listen(rest):
    """SLURMRESTD_LISTEN: the entries of slurm_rest_listen, comma-separated."""
    listen = _mapping(rest).get("listen")
    return ",".join(item for item in listen if isinstance(item, str)) if isinstance(listen, list) else ""


def _conf_value(conf, key):
    for name, value in conf.items():
        if str(name).lower() == key.lower():
            return value
    return None


def metrics_conf(metrics, series, conf):
    """({slurm.conf keys}, [errors]) for slurmctld's native metrics.

    metrics: {enabled, ignore_private_data}; series: the cluster's release; conf: slurm.conf's settings merged
    so far (the user's PrivateData is there). Off, or a release before 25.11: no keys (the collection's Slurm
    exporter reports every series)."""
    metrics = _mapping(metrics)
    enabled = metrics.get("enabled", True)
    ignore = metrics.get("ignore_private_data", False)
    errors = []
    if not isinstance(enabled, bool):
        errors.append("slurm_native_metrics is %s; give true or false." % shown(enabled, 40))
    if not isinstance(ignore, bool):
        errors.append("slurm_native_metrics_ignore_private_data is %s; give true or false." % shown(ignore, 40))
    if errors or not enabled or not native_metrics_available(series):
        return {}, errors
    keys = {"MetricsType": METRICS_TYPE}
    private = _conf_value(conf if isinstance(conf, dict) else {}, "PrivateData")
    if private not in (None, "", [], False):
        if not ignore:
            errors.append(
                "slurm_config sets PrivateData=%s, and with PrivateData slurmctld serves its native metrics to root "
                "and SlurmUser only: Prometheus would be refused every node, job and partition series. Either set "
                "slurm_native_metrics_ignore_private_data: true (MetricsParameters=ignore_private_data: the counts "
                "per state, partition and node become readable by anyone who reaches SlurmctldPort; user and "
                "account names stay private, at /metrics/jobs-users-accts, which is not scraped), or "
                "slurm_native_metrics: false (the collection's Slurm exporter then reports those series)."
                % str(private)[:60])
            return {}, errors
        keys["MetricsParameters"] = "ignore_private_data"
    return keys, errors


def conf_has_native_metrics(text):
    """Whether a slurm.conf text turns native metrics on (MetricsType=metrics/openmetrics, any case)."""
    if not isinstance(text, str):
        return False
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "metricstype" and value.strip().lower() == METRICS_TYPE:
            return True
    return False


rest_errors = guarded(SlurmRestError, "REST settings")(rest_errors)
metrics_conf = guarded(SlurmRestError, "native metrics settings")(metrics_conf)
rest_command = guarded(SlurmRestError, "slurmrestd options")(rest_command)
