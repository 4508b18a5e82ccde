# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared storage for the cluster: NFS exports, client mounts, external file systems.

Pure functions behind the ``shared_storage`` role (reached through
``plugins/filter/shared_storage.py``):

* ``mount_option_errors`` / ``export_option_errors``: option names and values
  that nfs(5), mount(8), systemd.mount(5) and exports(5) know;
* ``client_matches`` / ``covered_hosts``: which cluster hosts an exports(5)
  client pattern (network, address, name, wildcard) lets in;
* ``export_line``: one exports(5) line;
* ``choose_server``: the host that serves the exports;
* ``plan``: all of it at once, with every input error as a message that names
  the variable and the fix (bad input never raises here);
* ``host_mounts``: one host's part of the plan;
* ``client_todo``: what of it ansible.posix.mount and the mount point
  directories would change on a client, from /etc/fstab and /proc/self/mounts.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import ipaddress
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import json_shown, plain
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

MODES = ("nfs", "external")
NFS_FSTYPES = ("nfs", "nfs4")

# exports(5), nfs-utils 2.6 to 2.8: options without a value.
EXPORT_FLAGS = frozenset((
    "secure", "insecure", "rw", "ro", "async", "sync", "wdelay", "no_wdelay", "hide", "nohide",
    "crossmnt", "nocrossmnt", "subtree_check", "no_subtree_check", "secure_locks", "insecure_locks",
    "auth_nlm", "no_auth_nlm", "acl", "no_acl", "pnfs", "no_pnfs", "root_squash", "no_root_squash",
    "all_squash", "no_all_squash", "security_label", "nordirplus", "mp", "mountpoint",
))
# exports(5): options with a value, and the value's pattern (matched whole; see _value_ok).
_SEC_FLAVOR = r"(?:sys|krb5|krb5i|krb5p|none)"
_ID = r"-?[0-9]{1,10}"
EXPORT_VALUES = {
    "anonuid": _ID,
    "anongid": _ID,
    "fsid": r"(?:[0-9]{1,10}|root|[0-9A-Fa-f-]{8,64})",
    "sec": _SEC_FLAVOR + r"(?::" + _SEC_FLAVOR + r")*",
    "xprtsec": r"(?:none|tls|mtls)(?::(?:none|tls|mtls))*",
    "mp": r"/\S*",
    "mountpoint": r"/\S*",
    # path@host: the path runs to the first @ (it has none of its own), so the pattern cannot backtrack.
    "refer": r"/[^\s@]*@\S+",
    "replicas": r"/[^\s@]*@\S+",
}
EXPORT_CONFLICTS = (("rw", "ro"), ("sync", "async"), ("secure", "insecure"), ("root_squash", "no_root_squash"),
                    ("all_squash", "no_all_squash"), ("subtree_check", "no_subtree_check"), ("hide", "nohide"),
                    ("wdelay", "no_wdelay"), ("crossmnt", "nocrossmnt"), ("acl", "no_acl"))

# nfs(5), mount(8) and systemd.mount(5): options without a value.
MOUNT_FLAGS = frozenset((
    # nfs(5)
    "soft", "softerr", "softreval", "nosoftreval", "hard", "intr", "nointr", "cto", "nocto", "ac", "noac",
    "sharecache", "nosharecache", "resvport", "noresvport", "lock", "nolock", "acl", "noacl", "rdirplus",
    "nordirplus", "fsc", "nofsc", "posix", "noposix", "bg", "fg", "sloppy", "trunkdiscovery", "notrunkdiscovery",
    "migration", "nomigration",
    # mount(8), generic
    "defaults", "ro", "rw", "auto", "noauto", "exec", "noexec", "suid", "nosuid", "dev", "nodev", "atime",
    "noatime", "relatime", "norelatime", "strictatime", "nostrictatime", "lazytime", "nolazytime", "diratime",
    "nodiratime", "sync", "async", "dirsync", "user", "nouser", "users", "owner", "group", "nofail", "_netdev",
    "silent", "loud", "iversion", "noiversion", "mand", "nomand", "bind", "rbind",
    # systemd.mount(5)
    "x-systemd.automount", "x-systemd.rw-only", "x-systemd.growfs", "x-systemd.makefs", "x-systemd.pcrfs",
    "x-initrd.mount",
))
_NUM = r"[0-9]{1,10}"
# systemd.time(7) time spans: "infinity", or numbers each with an optional unit ("1min30s", "1.5s", "90"). Read by
# _timespan_ok, a scan that takes one number and its unit at a time (linear in the value); the one pattern that
# matched the whole value, (number unit?)+, backtracked exponentially on a long run of digits followed by a letter.
_TIMESPAN = "timespan"
_TIMESPAN_PART = re.compile(r"[0-9]{1,20}(?:\.[0-9]{1,20})?\s?([A-Za-z]*)")
TIMESPAN_UNITS = frozenset(("", "us", "ms", "s", "sec", "min", "m", "h", "hr", "d"))
# The longest option value read: more is garbage (and is not printed whole in a message).
MAX_VALUE = 4096
MOUNT_VALUES = {
    # nfs(5)
    "vers": r"(2|3|4|4\.0|4\.1|4\.2)",
    "nfsvers": r"(2|3|4|4\.0|4\.1|4\.2)",
    "minorversion": r"[0-2]",
    "rsize": _NUM, "wsize": _NUM, "timeo": _NUM, "retrans": _NUM, "retry": _NUM,
    "acregmin": _NUM, "acregmax": _NUM, "acdirmin": _NUM, "acdirmax": _NUM, "actimeo": _NUM,
    "port": _NUM, "mountport": _NUM, "mountvers": r"[1-3]", "namlen": _NUM, "max_connect": _NUM,
    "nconnect": r"([1-9]|1[0-6])",
    "proto": r"(tcp|udp|rdma|tcp6|udp6|rdma6)",
    "mountproto": r"(tcp|udp|tcp6|udp6)",
    "sec": _SEC_FLAVOR + r"(:" + _SEC_FLAVOR + r")*",
    "lookupcache": r"(all|none|pos|positive)",
    "local_lock": r"(none|all|flock|posix)",
    "xprtsec": r"(none|tls|mtls)",
    "write": r"(lazy|eager|wait)",
    "clientaddr": r"[0-9A-Fa-f.:]+",
    "mounthost": r"[A-Za-z0-9.:-]+",
    "fsc": r"\S+",
    # mount(8)
    "context": r"\S+", "fscontext": r"\S+", "defcontext": r"\S+", "rootcontext": r"\S+",
    "comment": r"\S*",
    # systemd.mount(5)
    "x-systemd.idle-timeout": _TIMESPAN,
    "x-systemd.mount-timeout": _TIMESPAN,
    "x-systemd.device-timeout": _TIMESPAN,
    "x-systemd.requires": r"\S+",
    "x-systemd.requires-mounts-for": r"/\S*",
    "x-systemd.before": r"\S+",
    "x-systemd.after": r"\S+",
    "x-systemd.wanted-by": r"\S+",
    "x-systemd.required-by": r"\S+",
}
MOUNT_CONFLICTS = (("hard", "soft"), ("hard", "softerr"), ("rw", "ro"), ("ac", "noac"), ("cto", "nocto"),
                   ("lock", "nolock"), ("sync", "async"), ("auto", "noauto"), ("bg", "fg"),
                   ("sharecache", "nosharecache"), ("resvport", "noresvport"))

_MODE_RE = re.compile(r"^[0-7]{3,4}\Z")
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
_HOST_RE = re.compile(r"^[A-Za-z0-9*?_\[\]][A-Za-z0-9*?_.\[\]-]*\Z")
_SERVER_RE = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)\Z")
_PATH_BAD = re.compile(r"[\s\"'\\,#()]")


class SharedStorageError(Exception):
    """Input of a shape the role never builds (not a list where a list is documented)."""


def _is_list(value):
    return isinstance(value, (list, tuple))


def _timespan_ok(value):
    """Whether value is a systemd time span, read one number and unit at a time."""
    if value == "infinity":
        return True
    position = 0
    while position < len(value):
        match = _TIMESPAN_PART.match(value, position)
        if not match or match.group(1) not in TIMESPAN_UNITS:
            return False
        position = match.end()
    return bool(value)


_COMPILED = {}


def _value_ok(pattern, value):
    """Whether an option's value is what its pattern (of MOUNT_VALUES or EXPORT_VALUES) allows, whole."""
    if len(value) > MAX_VALUE:
        return False
    if pattern == _TIMESPAN:
        return _timespan_ok(value)
    if pattern not in _COMPILED:
        _COMPILED[pattern] = re.compile(r"(?:%s)\Z" % pattern)
    return bool(_COMPILED[pattern].match(value))


def _group_name(settings):
    """The storage group's name as the settings give it (for messages)."""
    name = settings.get("server_group")
    return name if isinstance(name, str) else shown(name)


def _option_shown(option):
    return option if len(option) <= 80 else option[:80] + "..."


# --- options -----------------------------------------------------------------


def _option_errors(options, flags, values, conflicts, what):
    """Messages for unknown names, bad values and contradictions among options."""
    if not _is_list(options):
        return ["%s must be a list of option strings such as [hard, noac], not %s" % (what, shown(options))]
    errors = []
    names = []
    for option in options:
        if not isinstance(option, str) or not option.strip():
            errors.append("%s: option %s is not a string" % (what, shown(option)))
            continue
        name, sep, value = option.partition("=")
        if sep:
            pattern = values.get(name)
            if pattern is None:
                if name in flags:
                    errors.append("%s: option %s takes no value (write %s)" % (what, _option_shown(option), name))
                else:
                    errors.append("%s: unknown option %s" % (what, _option_shown(name)))
                continue
            if not _value_ok(pattern, value):
                errors.append("%s: bad value in %s" % (what, _option_shown(option)))
                continue
        elif name not in flags:
            if name in values:
                errors.append("%s: option %s needs a value (%s=...)" % (what, name, name))
            else:
                errors.append("%s: unknown option %s" % (what, _option_shown(name)))
            continue
        names.append(name)
    for first, second in conflicts:
        if first in names and second in names:
            errors.append("%s: options %s and %s contradict each other; keep one" % (what, first, second))
    return errors


def mount_option_errors(options, what="options"):
    """Messages for the mount options nfs(5), mount(8) and systemd.mount(5) do not know, or misuse.

    Other ``x-`` options (for example ``x-gvfs-show``) are for userspace tools and are accepted; a misspelt
    ``x-systemd.`` option is not.
    """
    if not _is_list(options):
        return _option_errors(options, MOUNT_FLAGS, MOUNT_VALUES, MOUNT_CONFLICTS, what)
    kept = [option for option in options
            if not (isinstance(option, str) and option.startswith("x-") and not option.startswith("x-systemd.")
                    and not option.startswith("x-initrd."))]
    return _option_errors(kept, MOUNT_FLAGS, MOUNT_VALUES, MOUNT_CONFLICTS, what)


def export_option_errors(options, what="options"):
    """Messages for the export options exports(5) does not know, or misuses."""
    return _option_errors(options, EXPORT_FLAGS, EXPORT_VALUES, EXPORT_CONFLICTS, what)


# --- client patterns ------------------------------------------------------------


def _network(pattern):
    """The ip_network of an exports(5) client that is an address or a network, else None.

    Raises ValueError for something that looks like a network and is not one.
    """
    text = pattern[1:-1] if pattern.startswith("[") and pattern.endswith("]") else pattern
    if "/" in text:
        address, _sep, mask = text.partition("/")
        if "." in mask:  # address/netmask
            mask = str(ipaddress.ip_network(u"0.0.0.0/" + mask).prefixlen)
        return ipaddress.ip_network(u"%s/%s" % (address, mask), strict=False)
    try:
        return ipaddress.ip_network(u"%s" % text)
    except ValueError:
        return None


def client_error(pattern):
    """A message when pattern is not an exports(5) client, else None."""
    if not isinstance(pattern, str) or not pattern:
        return "client %s is not a string" % shown(pattern)
    if pattern.startswith("@"):
        return None if _NAME_RE.match(pattern[1:]) else "client %s is not a netgroup name" % _option_shown(pattern)
    try:
        if _network(pattern) is not None:
            return None
    except ValueError as exc:
        return "client %s is not a network (%s)" % (_option_shown(pattern), _option_shown(str(exc)))
    if "/" in pattern or not _HOST_RE.match(pattern):
        return ("client %s is not an address, network (10.0.0.0/24), host name, wildcard or @netgroup"
                % _option_shown(pattern))
    return None


def client_matches(pattern, addresses, names):
    """Whether the exports(5) client pattern lets in a host with these addresses and names.

    None when it cannot be told here (a netgroup).
    """
    if pattern.startswith("@"):
        return None
    network = _network(pattern)
    if network is not None:
        for address in addresses:
            try:
                if ipaddress.ip_address(u"%s" % address) in network:
                    return True
            except ValueError:
                continue
        return False
    lowered = pattern.lower()
    return any(fnmatch.fnmatchcase(str(name).lower(), lowered) for name in names if name)


def covered_hosts(clients, hosts):
    """The hosts (name -> {addresses, names}) that at least one client pattern lets in; None if unknowable."""
    covered = []
    unknowable = False
    for host in sorted(hosts):
        info = hosts[host]
        for pattern in clients:
            found = client_matches(pattern, info.get("addresses") or [], info.get("names") or [])
            if found:
                covered.append(host)
                break
            if found is None:
                unknowable = True
    if not covered and unknowable:
        return None
    return covered


# --- lines -------------------------------------------------------------------------


def export_line(path, clients, options):
    """One exports(5) line: the path, then every client with the options (no space before the parenthesis)."""
    opts = ",".join(options)
    return "%s %s" % (path, " ".join("%s(%s)" % (client, opts) if opts else client for client in clients))


def mount_opts(options):
    """The fstab options field."""
    return ",".join(options) if options else "defaults"


def split_src(src):
    """(server, path) of an NFS source: host:/path, [v6]:/path, or /path alone (server None)."""
    if src.startswith("/"):
        return None, src
    server, sep, path = src.rpartition(":/")
    if not sep:
        return "", ""
    if server.startswith("[") and not server.endswith("]"):
        return "", ""
    return server, "/" + path


# --- the plan --------------------------------------------------------------------------


def choose_server(server_group, controllers):
    """The host that serves the exports: the first of the storage group, else the first controller; None if none."""
    for hosts in (server_group, controllers):
        if hosts:
            return list(hosts)[0]
    return None


def _check_path(path, what, errors):
    if not isinstance(path, str) or not path.startswith("/"):
        errors.append("%s: path %s is not absolute; write it from / (for example /shared)" % (what, shown(path)))
        return False
    if _PATH_BAD.search(path) or "/../" in path + "/" or "/./" in path + "/":
        errors.append("%s: path %s has spaces, quotes, commas, # or . / .. parts; use a plain absolute path"
                      % (what, shown(path)))
        return False
    return True


def _check_mode(entry, what, errors):
    mode = entry.get("mode")
    if mode is None:
        return
    if not isinstance(mode, str) or not _MODE_RE.match(mode):
        errors.append("%s: mode %s is not an octal mode; write it quoted, with 3 or 4 octal digits, such as '0755' "
                      "or '1777' (unquoted 0755 reads as the number 493)" % (what, shown(mode)))


def _check_owner(entry, what, errors):
    for key in ("owner", "group"):
        value = entry.get(key)
        if value is not None and not (isinstance(value, str) and _NAME_RE.match(value)):
            errors.append("%s: %s %s is not a user or group name" % (what, key, shown(value)))


def _unknown_keys(entry, allowed, what, errors):
    unknown = sorted(str(key) for key in entry if key not in allowed)
    if unknown:
        errors.append("%s: unknown key(s) %s; the keys are %s" % (what, ", ".join(unknown), ", ".join(allowed)))


def _normpath(path):
    return path.rstrip("/") or "/"


def _exported_by(path, export_paths):
    path = _normpath(path)
    for export in export_paths:
        export = _normpath(export)
        if path == export or path.startswith(export.rstrip("/") + "/"):
            return True
    return False


EXPORT_KEYS = ("path", "clients", "options", "owner", "group", "mode")
MOUNT_KEYS = ("path", "src", "fstype", "options", "owner", "group", "mode")
EXTERNAL_KEYS = ("path", "fstype", "writable", "check_user", "src", "options", "owner", "group", "mode")


def _entries(items, variable, shape, keys, twice, errors):
    """(what, entry, path, path_ok) for each mapping of a list setting, after the checks every entry gets.

    what names the entry in messages (variable[index] (path)); an entry that
    is not a mapping, an unknown key, a bad or repeated path, mode or owner
    is reported in errors.
    """
    seen = set()
    for index, entry in enumerate(items):
        what = "%s[%d]" % (variable, index)
        if not isinstance(entry, dict):
            errors.append("%s must be a mapping %s, not %s" % (what, shape, shown(entry)))
            continue
        path = entry.get("path")
        if isinstance(path, str):
            what = "%s (%s)" % (what, _option_shown(path))
        _unknown_keys(entry, keys, what, errors)
        ok = _check_path(path, what, errors)
        if ok and _normpath(path) in seen:
            errors.append("%s: %s %s" % (what, path, twice))
        if ok:
            seen.add(_normpath(path))
        _check_mode(entry, what, errors)
        _check_owner(entry, what, errors)
        yield what, entry, path, ok


DEFAULT_OPTIONS = (("export_options", "[rw, sync]"), ("mount_options", "[hard, noac]"))


def _default_options(settings, key):
    """The options of an entry that gives none: shared_storage_<key> (a list; anything else is reported by plan)."""
    value = settings.get(key)
    return list(value) if _is_list(value) else []


def _plan_exports(settings, clients_info, plan, errors, warnings):
    exports = settings.get("exports")
    if not _is_list(exports):
        errors.append("shared_storage_exports must be a list of {path, clients, options}, not %s" % shown(exports))
        return
    for what, entry, path, ok in _entries(exports, "shared_storage_exports", "{path, clients, options}", EXPORT_KEYS,
                                          "is exported twice; give each path one entry with all its clients", errors):
        options = entry.get("options", _default_options(settings, "export_options"))
        option_errors = export_option_errors(options, what)
        errors.extend(option_errors)
        clients = entry.get("clients")
        if not _is_list(clients) or not clients:
            errors.append("%s: clients must be a non-empty list of networks or hosts, such as [10.0.0.0/24]" % what)
            continue
        client_errors = [client_error(client) for client in clients]
        client_errors = [message for message in client_errors if message]
        for message in client_errors:
            errors.append("%s: %s" % (what, message))
        if client_errors or option_errors or not ok:
            continue
        known = dict((host, info) for host, info in clients_info.items() if info.get("addresses"))
        covered = covered_hosts(clients, clients_info)
        if covered is None:
            warnings.append("%s: the clients %s are netgroups; whether they let in the cluster hosts is not "
                            "checked" % (what, _option_shown(", ".join(clients))))
        elif not covered and not known and any(_network(client) is not None for client in clients):
            warnings.append("%s: no address of any cluster host is known (facts not gathered), so the clients %s "
                            "were not checked" % (what, _option_shown(", ".join(clients))))
        elif not covered:
            sample = []
            for host in sorted(clients_info)[:3]:
                addresses = clients_info[host].get("addresses") or []
                sample.append("%s (%s)" % (host, ", ".join(addresses[:3]) or "no address known"))
            errors.append(
                "%s: clients %s let in no cluster host: %s%s. Fix the clients of the export to the network the "
                "hosts reach the server on (for example %s), or set ansible_host of the hosts to their address "
                "on that network" % (
                    what, _option_shown(", ".join(clients)), ", ".join(sample), " ..." if len(clients_info) > 3 else "",
                    _suggest(known)))
        plan["exports"].append({
            "path": _normpath(path),
            "clients": list(clients),
            "options": list(options),
            "owner": entry.get("owner", "root"),
            "group": entry.get("group", "root"),
            "mode": entry.get("mode", "0755"),
            "line": export_line(_normpath(path), clients, options),
        })


def _suggest(known):
    for host in sorted(known):
        for address in known[host].get("addresses") or []:
            try:
                parsed = ipaddress.ip_address(u"%s" % address)
            except ValueError:
                continue
            if parsed.version == 4 and not parsed.is_loopback:
                return str(ipaddress.ip_network(u"%s/24" % address, strict=False))
    return "10.0.0.0/24"


def _plan_mounts(settings, plan, errors):
    mounts = settings.get("mounts")
    mode = plan["mode"]
    if not _is_list(mounts):
        errors.append("shared_storage_mounts must be a list of {path, src, fstype, options}, not %s" % shown(mounts))
        return
    export_paths = [export["path"] for export in plan["exports"]]
    exports_valid = not errors  # a bad export is reported once, not again with every mount of it
    pseudo_root = any(option == "fsid=0" or option == "fsid=root"
                      for export in plan["exports"] for option in export["options"])
    for what, entry, path, ok in _entries(mounts, "shared_storage_mounts", "{path, src, fstype, options}",
                                          EXTERNAL_KEYS if mode == "external" else MOUNT_KEYS,
                                          "is listed twice; keep one entry per mount point", errors):
        if mode == "external":
            _plan_external(entry, what, ok, plan, errors, settings)
            continue
        fstype = entry.get("fstype", "nfs")
        if fstype not in NFS_FSTYPES:
            errors.append("%s: fstype %s: in shared_storage_mode nfs the role mounts nfs or nfs4; for Lustre, GPFS "
                          "or mounts managed elsewhere set shared_storage_mode: external" % (what, shown(fstype)))
        options = entry.get("options", _default_options(settings, "mount_options"))
        option_errors = mount_option_errors(options, what)
        errors.extend(option_errors)
        src = entry.get("src", path if ok else None)
        if src is None and not ok:
            continue
        if not isinstance(src, str) or not src:
            errors.append("%s: src %s is not server:/path or /path" % (what, shown(src)))
            continue
        server, remote = split_src(src)
        if not remote or (server is not None and not server) or (server and not _SERVER_RE.match(server)):
            errors.append("%s: src %s is not server:/path (or /path, served by the storage host)"
                          % (what, _option_shown(src)))
            continue
        server_host = None
        if server is None or server in (plan["server"], plan["server_address"]):
            if plan["server"] is None:
                errors.append(
                    "%s: src %s names no server and there is no storage host: add a host to the group %s (or "
                    "the controller group) and export the path in shared_storage_exports, or write src as "
                    "server:/path" % (what, _option_shown(src), _group_name(settings)))
                continue
            server_host = plan["server"]
            server = plan["server_address"]
            if exports_valid and not pseudo_root and not _exported_by(remote, export_paths):
                errors.append(
                    "%s: %s is not exported by the storage host %s (shared_storage_exports paths: %s); add it to "
                    "shared_storage_exports or fix src" % (what, _option_shown(remote), server_host,
                                                           ", ".join(export_paths) or "none"))
        if option_errors or not ok:
            continue
        plan["mounts"].append({
            "path": _normpath(path),
            "src": "%s:%s" % (server, remote),
            "remote_path": remote,
            "server": server,
            "server_host": server_host,
            "fstype": fstype,
            "options": list(options),
            "opts": mount_opts(options),
            "owner": entry.get("owner", "root"),
            "group": entry.get("group", "root"),
            "mode": entry.get("mode", "0755"),
        })


def _plan_external(entry, what, ok, plan, errors, settings):
    writable = entry.get("writable", True)
    if not isinstance(writable, bool):
        errors.append("%s: writable %s must be true or false" % (what, shown(writable)))
    user = entry.get("check_user", settings.get("check_user"))
    if not isinstance(user, str) or not _NAME_RE.match(user):
        errors.append("%s: check_user %s is not a user name (shared_storage_check_user)" % (what, shown(user)))
    elif user == "root":
        errors.append("%s: check_user root can write anywhere, so it proves nothing; set shared_storage_check_user "
                      "(or the entry's check_user) to a user without privileges, such as nobody" % what)
    fstype = entry.get("fstype", "")
    if not isinstance(fstype, str) or (fstype and not _NAME_RE.match(fstype)):
        errors.append("%s: fstype %s is not a file system type such as lustre, gpfs or nfs4" % (what, shown(fstype)))
    if ok:
        plan["mounts"].append({"path": _normpath(entry["path"]), "fstype": fstype, "writable": writable,
                               "check_user": user})


def _host_names(hosts, what):
    """hosts as a list of inventory names; SharedStorageError for a shape the filter never builds."""
    if hosts is None:
        return []
    if not _is_list(hosts) or not all(isinstance(host, str) for host in hosts):
        raise SharedStorageError("%s must be a list of host names, not %s" % (what, shown(hosts)))
    return list(hosts)


def _check_clients_info(clients_info):
    """clients_info as the filter builds it: host -> {addresses: [text], names: [text]}; else SharedStorageError."""
    if not isinstance(clients_info, dict):
        raise SharedStorageError("clients_info must be a mapping, not %s" % type(clients_info).__name__)
    for host, info in clients_info.items():
        if not isinstance(host, str) or not isinstance(info, dict) or not all(
                _is_list(info.get(key) or []) and all(isinstance(item, str) for item in info.get(key) or [])
                for key in ("addresses", "names")):
            raise SharedStorageError("clients_info of %s must be {addresses: [...], names: [...]}, not %s"
                                     % (shown(host), shown(info)))


def plan(settings, server_group, controllers, clients_info):
    """The shared storage plan: server, export lines, mounts, and every input error (never raises on bad input).

    settings: mode, server_group (its name, for messages), server_address, exports, mounts, export_options,
    mount_options, exports_file, check_user.
    server_group, controllers: the hosts of the storage group and of the Slurm controller group.
    clients_info: host -> {addresses: [...], names: [...]} for every client (Slurm) host.
    """
    if not isinstance(settings, dict):
        raise SharedStorageError("settings must be a mapping, not %s" % type(settings).__name__)
    server_group = _host_names(server_group, "the storage group")
    controllers = _host_names(controllers, "the controller group")
    _check_clients_info(clients_info)
    errors = []
    warnings = []
    mode = settings.get("mode", "nfs")
    result = {"mode": mode, "server": None, "server_address": None, "exports": [], "mounts": [],
              "export_lines": [], "errors": errors, "warnings": warnings}
    if mode not in MODES:
        errors.append("shared_storage_mode is %s: set it to nfs (the role serves and mounts NFS) or external "
                      "(Lustre, GPFS or NFS mounted by other means: the role only checks the paths)" % shown(mode))
        return result
    for key, example in DEFAULT_OPTIONS:
        value = settings.get(key)
        if value is not None and not _is_list(value):
            errors.append("shared_storage_%s must be a list of option strings such as %s, not %s"
                          % (key, example, shown(value)))
    exports_file = settings.get("exports_file", "/etc/exports.d/gpuops.exports")
    if mode == "nfs" and exports_file != "/etc/exports" and not (
            isinstance(exports_file, str) and re.match(r"^/etc/exports\.d/[A-Za-z0-9_.-]+\.exports\Z", exports_file)):
        errors.append("shared_storage_exports_file is %s: exportfs reads /etc/exports and /etc/exports.d/*.exports "
                      "only; use /etc/exports.d/<name>.exports" % shown(exports_file))
    if mode == "nfs":
        _plan_exports(settings, clients_info, result, errors, warnings)
        if result["exports"] or errors:
            result["server"] = choose_server(server_group, controllers)
            if result["server"] is None and result["exports"]:
                errors.append("shared_storage_exports is set but no host serves it: put the NFS server in the group "
                              "%s (or have a Slurm controller)" % _group_name(settings))
        address = settings.get("server_address") or ""
        if not isinstance(address, str) or (address and not _SERVER_RE.match(address)):
            errors.append("shared_storage_server_address %s is not a host name or address" % shown(address))
            address = ""
        if result["server"] is not None:
            result["server_address"] = address or result["server"]
        result["export_lines"] = [export["line"] for export in result["exports"]]
    elif settings.get("exports"):
        warnings.append("shared_storage_exports is ignored in shared_storage_mode external")
    _plan_mounts(settings, result, errors)
    return result


def host_mounts(the_plan, host):
    """What one host does with each mount of the plan.

    Each entry is the plan's mount with ``action``: ``nfs`` (mount it), ``local`` (this host serves the path
    itself at the same place: nothing to mount), or ``bind`` (this host serves it at another path: a bind mount
    of the export), and for ``bind`` the local ``src``.
    """
    out = []
    for mount in the_plan.get("mounts") or []:
        entry = dict(mount)
        if the_plan.get("mode") == "external":
            entry["action"] = "check"
        elif mount.get("server_host") == host:
            if mount["remote_path"] == mount["path"]:
                entry["action"] = "local"
            else:
                entry.update({"action": "bind", "src": mount["remote_path"], "fstype": "none",
                              "opts": mount_opts(["bind"] + [option for option in mount["options"]
                                                             if option in ("nofail", "ro")])})
        else:
            entry["action"] = "nfs"
        out.append(entry)
    return out


def host_errors(settings):
    """What is wrong with one host's shared_storage settings: the OS data, shared_storage_kernel_nfs.

    settings: os_data (false: no package list for the OS, named os_name), kernel_nfs. Never raises.
    """
    if not isinstance(settings, dict):
        return ["the shared_storage host settings must be a mapping, not %s." % shown(settings)]
    errors = []
    if settings.get("os_data") is False:
        errors.append("no package list for %s (roles/shared_storage/vars)." % plain(settings.get("os_name")))
    kernel_nfs = settings.get("kernel_nfs")
    if not isinstance(kernel_nfs, bool) and kernel_nfs != "auto":
        errors.append("shared_storage_kernel_nfs is %s: set it to auto, true or false." % json_shown(kernel_nfs))
    return errors


def _result_parts(result):
    """(item, rc, stdout, stderr) of one registered loop result; item {} when it is not one."""
    if not isinstance(result, dict) or not isinstance(result.get("item"), dict):
        return {}, None, "", ""
    out, err = result.get("stdout"), result.get("stderr")
    return (result["item"], result.get("rc"), out if isinstance(out, str) else "",
            err.strip() if isinstance(err, str) else "")


def external_errors(host, findmnt=(), write=()):
    """Messages for the external file systems of one host (shared_storage_mode external) that are not usable.

    findmnt: the results of findmnt --output FSTYPE,SOURCE per mount (item: path, fstype); write: the results
    of creating and removing a file as item.check_user in each writable one.
    """
    errors = []
    for result in findmnt if isinstance(findmnt, list) else []:
        item, rc, out, _err = _result_parts(result)
        words = out.split()
        fstype = item.get("fstype") or ""
        if not item:
            continue
        if rc != 0:
            found = "is not a mount point (findmnt finds nothing mounted there)"
        elif fstype and (words[0] if words else "") != fstype:
            found = "is %s from %s, not %s" % (words[0] if words else "", words[-1] if words else "", fstype)
        else:
            continue
        errors.append("%s on %s %s. Mount it on every Slurm host (shared_storage_mode external checks, it does not "
                      "mount), or fix the path or fstype in shared_storage_mounts."
                      % (plain(item.get("path")), plain(host), found))
    for result in write if isinstance(write, list) else []:
        item, rc, _out, err = _result_parts(result)
        if item and rc != 0:
            errors.append("%s on %s is not writable by %s (%s). Give users a writable place there (for example mode "
                          "1777 or per-user directories), set shared_storage_check_user to a user who should write "
                          "there, or set writable: false on the entry in shared_storage_mounts."
                          % (plain(item.get("path")), plain(host), plain(item.get("check_user")), err))
    return errors


def server_not_started(host, reason, exports_file, service):
    """What the role says on a server whose kernel cannot serve NFS (reason: why not)."""
    return ("NFS server on %s not started: %s. The packages and %s are in place and exportfs checked the exports; "
            "on real hardware (or with shared_storage_kernel_nfs: true) the service %s is started and enabled."
            % (plain(host), plain(reason), plain(exports_file), plain(service)))


class MountTodoError(Exception):
    """client_todo's input is not what the role gives it."""


def _fstab_escape(value):
    """A field as ansible.posix.mount writes it in fstab (space, ampersand and backslash as octal)."""
    return value.replace("\\", "\\134").replace(" ", "\\040").replace("&", "\\046")


def _fstab_entries(text):
    """fstab's entries as ansible.posix.mount reads them on Linux: 4 to 6 fields (comments cut), dump and
    passno 0 (numbers, not text) when absent; other lines are not entries."""
    entries = []
    for line in text.splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        fields = line.split("#")[0].split()
        if len(fields) not in (4, 5, 6):
            continue
        entry = {"dump": 0, "passno": 0}
        entry.update(zip(("src", "name", "fstype", "opts", "dump", "passno"), fields))
        entries.append(entry)
    return entries


def mounted_targets(text):
    """The mount points /proc/self/mounts lists (the octal escapes of space, tab, newline, backslash undone)."""
    targets = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            targets.add(re.sub(r"\\([0-7]{3})", lambda found: chr(int(found.group(1), 8)), fields[1]))
    return targets


def client_todo(mounts, fstab_text, mounts_text, kernel):
    """What a client's NFS and bind mounts need, from one read of /etc/fstab and /proc/self/mounts.

    mounts: the host_mounts entries this host mounts (action nfs or bind), with path, src, fstype, opts,
    owner, group, mode. kernel: whether the host mounts (state mounted) or only writes fstab (present).
    Returns {"mounts": the entries for which ansible.posix.mount would change something (its fstab line
    missing or different, as the module compares them; with kernel, the path not mounted, and every bind
    mount, whose source only the module checks), "points": the mount point directories (path, state
    directory, owner, group, mode) of the paths that nothing is mounted on, for stale_files}.
    """
    if not isinstance(mounts, list) or not all(isinstance(item, dict) for item in mounts):
        raise MountTodoError("expected the host's mounts (a list of mappings), not %s" % shown(mounts))
    for name, value in (("fstab", fstab_text), ("mounts", mounts_text)):
        if not isinstance(value, str):
            raise MountTodoError("expected the %s text, not %s" % (name, shown(value)))
    entries = _fstab_entries(fstab_text)
    mounted = mounted_targets(mounts_text)
    todo = []
    points = []
    for mount in mounts:
        try:
            want = dict((key, _fstab_escape(str(mount[key]))) for key in ("src", "fstype", "opts"))
            name = _fstab_escape(str(mount["path"]))
        except KeyError as exc:
            raise MountTodoError("a mount without %s: %s" % (exc, shown(mount)))
        want.update({"dump": "0", "passno": "0"})
        same = [entry for entry in entries if entry["name"] == name]
        fstab_ok = bool(same) and all(entry[key] == want[key] for entry in same for key in want)
        here = mount["path"] in mounted
        if not fstab_ok or (kernel and (mount.get("action") == "bind" or not here)):
            todo.append(mount)
        if not here:
            points.append({"path": mount["path"], "state": "directory", "owner": mount.get("owner"),
                           "group": mount.get("group"), "mode": mount.get("mode")})
    return {"mounts": todo, "points": points}
