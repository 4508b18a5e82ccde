# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare wanted files and directories with what one ``find`` call saw.

A role looks at every file it manages with a single
``ansible.builtin.find`` (``get_checksum: true``), then runs its copy/file
tasks only over the entries this module says are stale. An idempotent run
then costs one remote call instead of two per file, and the copy/file
modules still do every real change (and ``--check``/``--diff``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import hashlib
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip, shown


class FileStateError(Exception):
    """A wanted entry or the find result is malformed."""


def _text_bytes(content):
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    if not isinstance(content, str):
        raise FileStateError("content must be text, not %s" % shown(content))
    try:
        return content.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate surrogateescape never makes: not a file's text
        raise FileStateError("content holds %s, which is not text a file can hold" % shown(content, 80))


def content_checksum(content):
    """The SHA-1 that ``find``/``stat`` report for a file holding content."""
    return hashlib.sha1(_text_bytes(content)).hexdigest()


_MODE_RE = re.compile(r"\s*[0-7]{1,6}\s*\Z")


def _norm_mode(mode):
    if mode is None:
        return None
    text = mode if isinstance(mode, str) else str(mode) if isinstance(mode, int) and 0 <= mode < 10 ** 6 else ""
    if not _MODE_RE.match(text):
        raise FileStateError("mode %s is not an octal string such as '0644'" % shown(mode))
    return "%04o" % int(text, 8)


def index_found(found):
    """Map path -> entry for the ``files`` list of a find result (or the result)."""
    if isinstance(found, dict):
        found = found.get("files", [])
    if not isinstance(found, (list, tuple)):
        raise FileStateError("expected the find result or its files list, got %s" % type(found).__name__)
    index = {}
    for entry in found:
        if not isinstance(entry, dict) or "path" not in entry:
            raise FileStateError("find entry without a path: %s" % shown(entry))
        index[entry["path"].rstrip("/") or "/"] = entry
    return index


def is_stale(wanted, have):
    """True when the wanted entry differs from what was found (or is missing).

    wanted: dict with path, and optionally state (file|directory|absent), owner,
    group, mode and content (files).
    """
    if not isinstance(wanted, dict) or not wanted.get("path") or not isinstance(wanted["path"], str):
        raise FileStateError("each wanted entry needs a path: %s" % shown(wanted))
    path = wanted["path"].rstrip("/") or "/"
    entry = have.get(path)
    state = wanted.get("state", "file")
    if state not in ("file", "directory", "absent"):
        raise FileStateError("state %s for %s: use file, directory or absent" % (shown(state), clip(path, 200)))
    if state == "absent":
        return entry is not None
    if entry is None:
        return True
    if state == "directory":
        if not entry.get("isdir", False):
            return True
    else:
        if not entry.get("isreg", False):
            return True
        if "content" in wanted and wanted["content"] is not None:
            if entry.get("checksum") != content_checksum(wanted["content"]):
                return True
        if wanted.get("content_b64") is not None:
            try:
                data = base64.b64decode(wanted["content_b64"], validate=True)
            except (TypeError, ValueError, binascii.Error):
                raise FileStateError("content_b64 of %s is not valid base64" % path)
            if entry.get("checksum") != content_checksum(data):
                return True
    for key, field in (("owner", "pw_name"), ("group", "gr_name")):
        value = wanted.get(key)
        if value is not None and not isinstance(value, (str, int)) or isinstance(value, bool):
            raise FileStateError("%s %s of %s is not a user or group name" % (key, shown(value), clip(path, 200)))
        if value is not None and entry.get(field) != (value if isinstance(value, str) else "%d" % value):
            return True
    want_mode = _norm_mode(wanted.get("mode"))
    if want_mode is not None and _norm_mode(entry.get("mode")) != want_mode:
        return True
    return False


def stale_entries(wanted, found):
    """The wanted entries that differ from the find result, in their order.

    wanted may also be a dict of such lists (files grouped by the handler they notify): the result
    is then the same dict with each list cut to its stale entries, from one reading of found.
    """
    have = index_found(found)
    if isinstance(wanted, dict):
        return dict((key, _stale(group, have, key)) for key, group in wanted.items())
    return _stale(wanted, have)


def _stale(wanted, have, key=None):
    if not isinstance(wanted, (list, tuple)):
        raise FileStateError("expected a list of wanted entries%s, got %s"
                             % ("" if key is None else " under %s" % shown(key), type(wanted).__name__))
    return [item for item in wanted if is_stale(item, have)]


def probed_checksums(hostvars, hosts, probe_var, path):
    """[checksum of path on each host, or 'missing'], from each host's probe (gpuops.cluster.host_probe's
    result, registered as probe_var; index_found reads its files list)."""
    sums = []
    for host in hosts or []:
        probe = (hostvars.get(host) or {}).get(probe_var) or {}
        entry = index_found(dict(probe)).get(path.rstrip("/") or "/") or {}
        sums.append(entry.get("checksum") or "missing")
    return sums


# What ansible.module_utils.parsing.convert_bool reads as true and false
# (ansible.posix.sysctl writes such a value as 1 or 0).
_SYSCTL_TRUE = ("y", "yes", "on", "1", "true", "t")
_SYSCTL_FALSE = ("n", "no", "off", "0", "false", "f")


def _sysctl_value(value):
    """A value as ansible.posix.sysctl compares it (the role gives it as text)."""
    text = str(value)
    if text.lower() in _SYSCTL_TRUE:
        return "1"
    if text.lower() in _SYSCTL_FALSE:
        return "0"
    return text.strip()


def sysctl_proc_path(key):
    """Where /proc/sys shows a sysctl key (net.core.rmem_max: /proc/sys/net/core/rmem_max)."""
    key = str(key).strip()
    return "/proc/sys/" + (key.strip("/") if "/" in key else key.replace(".", "/"))


def probe_text(contents, path):
    """The text of path in host_probe's RV contents (base64), or None when the probe found no such file."""
    if not isinstance(contents, dict):
        raise FileStateError("expected host_probe's contents (a mapping), not %s" % shown(contents))
    data = contents.get(path)
    if data is None:
        return None
    try:
        return base64.b64decode(data, validate=True).decode("utf-8", "surrogateescape")
    except (binascii.Error, TypeError, ValueError):
        raise FileStateError("the content of %s is not base64: %s" % (path, shown(data)))


def stale_sysctls(wanted, contents, sysctl_file, live):
    """The sysctls ansible.posix.sysctl (state present) would change, from one host_probe read.

    wanted: {key: value}. contents: host_probe's RV contents (base64) of the sysctl file and of
    /proc/sys/<key> for each key (sysctl_proc_path); a file it lacks is missing. live: whether the
    module also sets the running value (sysctl_set and reload). A key is stale when the file's last
    line for it (key = value, # and ; comments skipped) is missing or has another value, or, when live,
    when /proc/sys lacks it or holds another value (compared word by word, as the module does).
    Returns [{"key", "value"}] in the order of wanted, the value as given.
    """
    if not isinstance(wanted, dict) or not isinstance(contents, dict):
        raise FileStateError("expected the wanted sysctls and host_probe's contents (mappings), not %s and %s"
                             % (shown(wanted), shown(contents)))
    text = probe_text(contents, sysctl_file) or ""
    in_file = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        in_file[key.strip()] = value.strip()
    stale = []
    for key, value in wanted.items():
        want = _sysctl_value(value)
        name = str(key).strip()
        ok = in_file.get(name) == want
        if ok and live:
            running = probe_text(contents, sysctl_proc_path(name))
            ok = running is not None and running.split() == want.split()
        if not ok:
            stale.append({"key": key, "value": value})
    return stale


def _read_lines(text):
    """The lines as Python's readlines() gives them from the file's bytes (split after each \\n only)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_kept(text, regexp, line):
    """Whether ansible.builtin.lineinfile (state present, regexp and line, no insertafter, insertbefore,
    backrefs or firstmatch) would leave this file's content as it is.

    text: the file's content, or None when the file does not exist (the module then creates it).
    The last line the regexp finds (re.search) must be the line with its newline; with no line found
    so, the last line equal to the line (ignoring its line end) must be; with neither, the module adds it.
    """
    if text is None:
        return False
    if not isinstance(text, str) or not isinstance(regexp, str) or not isinstance(line, str):
        raise FileStateError("expected the file's text, a regexp and a line, not %s, %s and %s"
                             % (shown(text), shown(regexp), shown(line)))
    try:
        pattern = re.compile(regexp)
    except re.error as exc:
        raise FileStateError("the regexp %s does not compile: %s" % (shown(regexp), exc))
    lines = _read_lines(text)
    index = -1
    for number, current in enumerate(lines):
        if pattern.search(current):
            index = number
    if index == -1:
        for number, current in enumerate(lines):
            if current.rstrip("\r\n") == line:
                index = number
    return index != -1 and lines[index] == line + "\n"
