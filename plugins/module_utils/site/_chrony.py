# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""chrony.conf of one host (role chrony), from the cluster's time settings.

config(settings) checks the settings and returns the configuration lines of
one host, its daemon options and whether it serves time; every problem is a
message in ``errors`` that names the variable and the fix, bad input never
raises. The work is per host and does not grow with the cluster.

Two shapes:

* site NTP servers (``servers`` not empty): every host uses them; a host
  serves time to others only when told to (``serve: true``).
* no site servers: the cluster's time server (the Slurm controller) runs
  from its own clock (``local stratum``) and serves the cluster network
  (``allow``: given, or the network of its default IPv4 interface); every
  other host uses it as its only server.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import json_clipped
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# Source options chrony 4 takes: flags, and options with a value (integer or number).
FLAG_OPTIONS = frozenset(("iburst", "burst", "prefer", "noselect", "trust", "require", "xleave", "nts", "offline",
                          "auto_offline", "copy"))
INT_OPTIONS = frozenset(("minpoll", "maxpoll", "key", "port", "polltarget", "minstratum", "maxsources", "version",
                         "presend", "filter", "certset", "ntsport", "maxsamples", "minsamples"))
FLOAT_OPTIONS = frozenset(("maxdelay", "maxdelayratio", "maxdelaydevratio", "mindelay", "asymmetry", "offset"))
_INT_RE = re.compile(r"^-?[0-9]{1,6}\Z")
_FLOAT_RE = re.compile(r"^-?[0-9]{1,9}(\.[0-9]{1,9})?(e-?[0-9]{1,2})?\Z")
_LABEL_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
_MAKESTEP_RE = re.compile(r"^[0-9]{1,6}(\.[0-9]{1,6})? -?[0-9]{1,6}\Z")
# A line of chrony.conf given by hand: printable, one line.
_LINE_RE = re.compile(r"^[^\x00-\x1f\x7f]*\Z")
SERVER_KEYS = ("host", "options", "pool")
_SHOWN = 60
HEADER = "# Managed by Ansible (gpuops.cluster.chrony): changes here are overwritten."


def _shown(value):
    text = value if isinstance(value, str) else shown(value, _SHOWN)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _json(value):
    """value as to_json writes it (text in double quotes), clipped; never raises."""
    return json_clipped(value, _SHOWN)


def valid_host(name):
    """Whether name is an IPv4/IPv6 address or a DNS host name (RFC 1123 labels, at most 253 characters)."""
    if not isinstance(name, str) or not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    name = name[:-1] if name.endswith(".") else name
    if len(name) > 253 or re.match(r"^[0-9.]+$", name):
        return False
    return all(_LABEL_RE.match(label) for label in name.split("."))


def _options(words, what, errors):
    """Source option words checked, as a list (flags, and option value pairs)."""
    out = []
    index = 0
    while index < len(words):
        word = words[index]
        if not isinstance(word, str):
            errors.append("%s: option %s is not text" % (what, _shown(word)))
            return None
        if word in FLAG_OPTIONS:
            out.append(word)
            index += 1
            continue
        if word in INT_OPTIONS or word in FLOAT_OPTIONS:
            value = words[index + 1] if index + 1 < len(words) else None
            pattern = _INT_RE if word in INT_OPTIONS else _FLOAT_RE
            if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not pattern.match(str(value)):
                errors.append("%s: option %s needs a %s after it, not %s"
                              % (what, word, "whole number" if word in INT_OPTIONS else "number", _shown(value)))
                return None
            out.extend([word, str(value)])
            index += 2
            continue
        errors.append("%s: %s is not a chrony source option (flags: %s; with a value: %s)"
                      % (what, _shown(word), ", ".join(sorted(FLAG_OPTIONS)),
                         ", ".join(sorted(INT_OPTIONS | FLOAT_OPTIONS))))
        return None
    return out


def source_lines(servers, default_options, errors):
    """``server``/``pool`` lines of chrony_servers (strings 'host [options]' or {host, options, pool})."""
    if not isinstance(servers, list):
        errors.append("chrony_servers must be a list of servers ('ntp1.example.com iburst' or {host, options, pool}), "
                      "not %s" % _shown(servers))
        return []
    if not isinstance(default_options, list):
        errors.append("chrony_server_options must be a list of source options, not %s" % _shown(default_options))
        return []
    defaults = _options(default_options, "chrony_server_options", errors)
    lines = []
    seen = set()
    for index, entry in enumerate(servers, 1):
        what = "chrony_servers[%d]" % index
        pool = False
        if isinstance(entry, str):
            words = entry.split()
            host, words = (words[0], words[1:]) if words else ("", [])
            options = words or None
        elif isinstance(entry, dict):
            extra = sorted(str(key) for key in entry if key not in SERVER_KEYS)
            if extra:
                errors.append("%s has unknown keys %s: the keys are host, options, pool" % (what, ", ".join(extra)))
                continue
            host = entry.get("host")
            options = entry.get("options")
            pool = entry.get("pool", False)
            if not isinstance(pool, bool):
                errors.append("%s: pool must be true or false, not %s" % (what, _shown(pool)))
                continue
            if options is not None and not isinstance(options, list):
                errors.append("%s: options must be a list such as [iburst], not %s" % (what, _shown(options)))
                continue
        else:
            errors.append("%s must be 'host [options]' or {host, options, pool}, not %s" % (what, _shown(entry)))
            continue
        if not valid_host(host):
            errors.append("%s: %s is not a host name or an IP address (letters, digits, - and . ; or an IPv4/IPv6 "
                          "address)" % (what, _shown(host)))
            continue
        if host.lower() in seen:
            errors.append("chrony_servers lists %s twice: keep one entry" % host)
            continue
        seen.add(host.lower())
        checked = _options(options, "%s (%s)" % (what, host), errors) if options is not None else defaults
        if checked is None:
            continue
        lines.append(" ".join(["pool" if pool else "server", host] + checked))
    return lines


def allow_networks(allow, errors):
    """chrony_allow checked, as networks (a bare address is its /32 or /128; 'all' is everything)."""
    if not isinstance(allow, list):
        errors.append("chrony_allow must be a list of networks such as 10.0.0.0/16, not %s" % _shown(allow))
        return []
    networks = []
    for index, entry in enumerate(allow, 1):
        if entry == "all":
            networks.append("all")
            continue
        try:
            if not isinstance(entry, str):
                raise ValueError
            networks.append(str(ipaddress.ip_network(entry, strict=True)))
        except ValueError:
            errors.append("chrony_allow[%d] %s is not a network: write it as address/prefix with the host bits zero "
                          "(10.0.0.0/16, fd00::/64), a single address, or all" % (index, _shown(entry)))
    return networks


def interface_network(address, netmask):
    """The network (CIDR) of an interface from its address and netmask, or '' when they are not IPv4."""
    try:
        return str(ipaddress.ip_network("%s/%s" % (address, netmask), strict=False))
    except (TypeError, ValueError):
        return ""


def _choice(value, what, errors):
    if value == "auto" or isinstance(value, bool):
        return value
    errors.append("%s must be auto, true or false, not %s" % (what, _shown(value)))
    return "auto"


def config(settings):
    """One host's chrony configuration: {lines, daemon_options, serve, clock_control, sources, errors}.

    settings: servers, server_options, time_server (this host is the
    cluster's time server), time_server_known (there is one: chrony_server_host or the first host of
    server_group, an inventory host; server_host, server_group and server_group_hosts, its count, name it in
    the message when there is none), time_server_address (what the others use),
    serve, allow, default_interface (the time server's default IPv4
    interface facts: address, netmask),
    local_stratum, clock_control (auto, true, false), container,
    makestep, base_lines (the OS's chrony.conf lines; None: the role has no data for the OS, named by
    distribution), extra_lines,
    daemon_options (the OS's default chronyd options).
    """
    errors = []
    if not isinstance(settings, dict):
        return {"lines": [], "daemon_options": "", "serve": False, "clock_control": True, "sources": [],
                "errors": ["chrony_*: the chrony settings must be a mapping of the chrony_ variables, not %s"
                           % _shown(settings)]}
    sources = source_lines(settings.get("servers", []), settings.get("server_options", ["iburst"]), errors)
    time_server = bool(settings.get("time_server"))
    site_servers = bool(settings.get("servers"))
    serve = _choice(settings.get("serve", "auto"), "chrony_serve", errors)
    serve = (time_server and not site_servers) if serve == "auto" else serve
    clock_control = _choice(settings.get("clock_control", "auto"), "chrony_clock_control", errors)
    clock_control = (not settings.get("container")) if clock_control == "auto" else clock_control
    if not site_servers and not settings.get("time_server_known", True):
        errors.append("chrony_servers is empty and there is no time server: chrony_server_host is %s and the group %s "
                      "(slurm_controller_group) has %s hosts. Set chrony_servers to your site NTP servers, or "
                      "chrony_server_host to an inventory host"
                      % (_json(settings.get("server_host", "")), _shown(settings.get("server_group")),
                         _shown(settings.get("server_group_hosts"))))
    elif not site_servers and not time_server:
        address = settings.get("time_server_address")
        if not valid_host(address):
            errors.append("no NTP source for this host: chrony_servers is empty and the time server's address %s is "
                          "not a host name or address: set chrony_servers, or chrony_server_host / "
                          "chrony_server_address" % (_shown(address) or "(empty)"))
        else:
            options = settings.get("server_options", ["iburst"])
            options = (_options(options, "chrony_server_options", []) if isinstance(options, list) else None) or []
            sources = [" ".join(["server", address] + options)]
    lines = [HEADER] + sources
    base = settings.get("base_lines", [])
    if base is None:
        errors.append("no chrony settings for %s (roles/chrony/vars)" % _shown(settings.get("distribution")))
        base = []
    elif not isinstance(base, list) or not all(isinstance(line, str) and _LINE_RE.match(line) for line in base):
        errors.append("__chrony_base_lines (the OS data's chrony.conf lines) must be a list of single lines, not %s"
                      % _shown(base))
        base = []
    lines.extend(line for line in base if clock_control or line != "rtcsync")
    makestep = settings.get("makestep", "1.0 3")
    if makestep:
        if isinstance(makestep, str) and _MAKESTEP_RE.match(makestep):
            lines.append("makestep " + makestep)
        else:
            errors.append("chrony_makestep must be '<threshold seconds> <limit of updates>' such as '1.0 3' "
                          "(empty: never step), not %s" % _shown(makestep))
    if serve:
        networks = allow_networks(settings.get("allow", []), errors)
        if not networks and settings.get("allow") == []:
            interface = settings.get("default_interface") or {}
            network = interface_network(interface.get("address"), interface.get("netmask")) \
                if isinstance(interface, dict) else ""
            if network:
                networks = [network]
            else:
                errors.append("chrony_allow is empty and the time server's network is unknown (its facts show no "
                              "default IPv4 interface; without iproute2 Ansible cannot see it): set chrony_allow to "
                              "the cluster network, such as 10.0.0.0/16")
        lines.extend("allow " + network for network in networks)
        stratum = settings.get("local_stratum", 10)
        if isinstance(stratum, bool) or not isinstance(stratum, int) or not 0 <= stratum <= 15:
            errors.append("chrony_local_stratum must be 1 to 15 (0: no local reference), not %s" % _shown(stratum))
        elif stratum and not site_servers:
            lines.append("local stratum %d" % stratum)
    extra = settings.get("extra_lines", [])
    if not isinstance(extra, list) or not all(isinstance(line, str) and _LINE_RE.match(line) for line in extra):
        errors.append("chrony_extra_config must be a list of single chrony.conf lines, not %s" % _shown(extra))
    else:
        lines.extend(extra)
    options = settings.get("daemon_options", "")
    options = options.split() if isinstance(options, str) else []
    if not clock_control and "-x" not in options:
        options.append("-x")
    return {"lines": lines, "daemon_options": " ".join(options), "serve": bool(serve),
            "clock_control": bool(clock_control), "sources": sources, "errors": errors}
