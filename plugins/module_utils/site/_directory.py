# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Users and groups from the site's directory (gpuops.cluster.directory): SSSD's configuration for an LDAP server,
the checks the role's preflight makes on each host, and the Slurm accounts that follow directory groups.

Pure functions, no I/O:

* ``settings_errors``: the role's settings, each problem a message that names the setting and the fix;
* ``sssd_conf``: the text of /etc/sssd/sssd.conf (sssd.conf(5), sssd-ldap(5));
* ``ldapsearch_result``: what one ``ldapsearch`` of the base DN says about a server (reachable, TLS, credentials,
  the base DN present), with the fix;
* ``getent_entries`` and ``resolved``: what ``getent passwd``/``getent group`` answered;
* ``certificate_result``: what ``openssl x509 -noout -subject -enddate -checkend 0`` says of the CA;
* ``account_members``: directory groups mapped to Slurm accounts, with their members.

SSSD's rules followed (sssd.conf(5), sssd-ldap(5), SSSD 2.8 of Debian 12 and 2.10 of Debian 13):

* sssd refuses a configuration file that others can read (0600, owned by root or sssd's user).
* An LDAP server is used for authentication only over TLS: ldaps://, or ldap:// with StartTLS
  (``ldap_id_use_start_tls``, which also protects the identity lookups). ``ldap_tls_reqcert = demand`` refuses a
  server whose certificate does not verify against ``ldap_tls_cacert`` (or the system's store without it);
  ``never`` does not check it at all.
* ``enumerate = false`` (the default): SSSD never lists the whole directory, only what is asked for.
* Entries are cached: ``entry_cache_timeout`` (seconds) is how long one is served before the server is asked again
  (and the NSS responder's in-memory cache, ``memcache_timeout``, 300 s by default, answers on its own until it
  expires: a user removed from the directory resolved on for 5 minutes in the test with a 30 s entry timeout);
  while the server cannot be reached, expired entries are still served, so running jobs keep their users.
  ``cache_credentials`` lets a user who logged in before log in while it is down, for
  ``offline_credentials_expiration`` days ([pam]; 0: no limit).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

SCHEMAS = ("rfc2307", "rfc2307bis")
CA_PATH = "/etc/sssd/pki/gpuops-directory-ca.pem"
DEFAULT_CACHE_TIMEOUT_S = 5400
CACHE_TIMEOUT_RANGE = (30, 604800)
OFFLINE_DAYS_RANGE = (0, 365)
# An id below this is a system account's: SSSD does not serve directory entries below it (min_id).
MIN_ID_RANGE = (1000, 2000000000)

_URI = re.compile(r"\A(ldaps?)://([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:]{2,39}\])(?::([0-9]{1,5}))?/?\Z")
# A distinguished name as RFC 4514 writes one: attribute=value pairs joined by commas (a value may hold an
# escaped comma); checked for shape, not for the directory's schema.
_RDN = re.compile(r"\A[A-Za-z][A-Za-z0-9-]{0,63}=(?:[^,+\\\x00-\x1f]|\\.){1,256}\Z")
_DOMAIN = re.compile(r"\A[A-Za-z0-9_.-]{1,64}\Z")
_NAME = re.compile(r"\A[a-z_][a-z0-9_.-]{0,31}\Z")
_ACCOUNT = re.compile(r"\A[a-z0-9_][a-z0-9_.-]{0,63}\Z")


class DirectoryError(Exception):
    """Output of ldapsearch, getent or openssl that cannot be read."""


def _split_dn(dn):
    parts, current, escaped = [], "", False
    for char in dn:
        if escaped:
            current += char
            escaped = False
        elif char == "\\":
            current += char
            escaped = True
        elif char == ",":
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def is_dn(value):
    """Whether value reads as a distinguished name (dc=example,dc=org)."""
    return isinstance(value, str) and bool(value.strip()) and all(
        _RDN.match(part) for part in _split_dn(value.strip()))


def _uri_errors(uris, starttls):
    errors = []
    if not isinstance(uris, list) or not uris:
        return ["directory_ldap_uris must list the directory's servers (ldaps://ldap1.example.org or "
                "ldap://ldap1.example.org with directory_starttls), not %s" % shown(uris, 60)]
    for uri in uris:
        match = _URI.match(uri) if isinstance(uri, str) else None
        if not match or (match.group(3) and not 0 < int(match.group(3)) < 65536):
            errors.append("directory_ldap_uris: %s is not an LDAP server's URI: give ldaps://host[:port] or "
                          "ldap://host[:port], nothing after the port" % shown(uri, 80))
        elif match.group(1) == "ldap" and not starttls:
            errors.append("directory_ldap_uris: %s is plain LDAP and directory_starttls is false: passwords and "
                          "every uid and gid would cross the network unprotected. Use ldaps://, or set "
                          "directory_starttls: true" % uri)
    return errors


def _whole(settings, key, default, low, high, unit):
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return ["%s must be a whole number of %s from %d to %d, not %s" % (key, unit, low, high, shown(value, 40))]
    return []


def settings_errors(settings):
    """[] or messages naming each directory_* setting that is wrong and the fix; never raises."""
    if not isinstance(settings, dict):
        return ["the directory settings must be a mapping, not %s" % shown(settings, 60)]
    errors = []
    starttls = settings.get("directory_starttls", True)
    if not isinstance(starttls, bool):
        errors.append("directory_starttls must be true or false, not %s" % shown(starttls, 40))
        starttls = True
    errors += _uri_errors(settings.get("directory_ldap_uris"), starttls)
    domain = settings.get("directory_domain", "ldap")
    if not isinstance(domain, str) or not _DOMAIN.match(domain):
        errors.append("directory_domain must be a name of letters, digits, '_', '.' or '-' (SSSD's domain, as in "
                      "user@domain), not %s" % shown(domain, 60))
    if not is_dn(settings.get("directory_base_dn")):
        errors.append("directory_base_dn must be the directory's base DN, such as dc=example,dc=org, not %s"
                      % shown(settings.get("directory_base_dn"), 80))
    for key in ("directory_user_base_dn", "directory_group_base_dn", "directory_bind_dn"):
        value = settings.get(key, "")
        if value not in ("", None) and not is_dn(value):
            errors.append("%s must be a DN such as ou=people,dc=example,dc=org, or empty, not %s"
                          % (key, shown(value, 80)))
    schema = settings.get("directory_schema", "rfc2307")
    if schema not in SCHEMAS:
        errors.append("directory_schema must be rfc2307 (groups list members by name, memberUid) or rfc2307bis "
                      "(by DN, member), not %s" % shown(schema, 40))
    bind_dn = settings.get("directory_bind_dn") or ""
    password = settings.get("directory_bind_password") or ""
    if bind_dn and not isinstance(password, str):
        errors.append("directory_bind_password must be text (from vault), not %s" % type(password).__name__)
    elif bind_dn and not password:
        errors.append("directory_bind_dn is set and directory_bind_password is empty: give the bind password "
                      "from vault, or leave directory_bind_dn empty to search anonymously")
    elif password and not bind_dn:
        errors.append("directory_bind_password is set without directory_bind_dn: name the DN it belongs to")
    verify = settings.get("directory_tls_verify", True)
    if not isinstance(verify, bool):
        errors.append("directory_tls_verify must be true or false (false only where the server's certificate "
                      "cannot be verified, and knowingly), not %s" % shown(verify, 40))
    ca = settings.get("directory_tls_ca", "")
    if not isinstance(ca, str) or (ca.strip() and not ca.strip().startswith("-----BEGIN CERTIFICATE-----")):
        errors.append("directory_tls_ca must be the PEM text of the CA that signed the servers' certificates "
                      "(-----BEGIN CERTIFICATE-----, e.g. from a lookup of the file), or empty for the system's "
                      "trusted CAs, not %s" % shown(ca, 40))
    errors += _whole(settings, "directory_cache_timeout_s", DEFAULT_CACHE_TIMEOUT_S, CACHE_TIMEOUT_RANGE[0],
                     CACHE_TIMEOUT_RANGE[1], "seconds")
    errors += _whole(settings, "directory_offline_credentials_days", 3, OFFLINE_DAYS_RANGE[0], OFFLINE_DAYS_RANGE[1],
                     "days (0: a cached password works offline without limit)")
    errors += _whole(settings, "directory_min_id", 1000, MIN_ID_RANGE[0], MIN_ID_RANGE[1],
                     "ids (the directory's lowest uid and gid; system accounts are below)")
    test_user = settings.get("directory_test_user", "")
    if test_user and (not isinstance(test_user, str) or not _NAME.match(test_user)):
        errors.append("directory_test_user must be a user name of the directory the preflight resolves on every "
                      "host, or empty, not %s" % shown(test_user, 40))
    return errors


def account_group_errors(mapping, setting="slurm_dbd_account_groups"):
    """[] or messages for a mapping of directory group to Slurm account (the setting named in them)."""
    if not isinstance(mapping, dict):
        return ["%s must map a directory group to a Slurm account ({ml-vision: vision}), not %s"
                % (setting, shown(mapping, 60))]
    errors = []
    for group, account in sorted(mapping.items(), key=lambda item: str(item[0])):
        if not isinstance(group, str) or not _NAME.match(group):
            errors.append("%s: %s is not a group name" % (setting, shown(group, 40)))
        if not isinstance(account, str) or not _ACCOUNT.match(account):
            errors.append("%s[%s] must be a Slurm account name (lower case), not %s"
                          % (setting, shown(group, 40), shown(account, 40)))
    return errors


def _line(key, value):
    if isinstance(value, bool):
        value = "true" if value else "false"
    return "%s = %s" % (key, value)


def sssd_conf(settings, bind_password=None, ca_path=CA_PATH):
    """The text of /etc/sssd/sssd.conf for settings (settings_errors gave none).

    bind_password: the bind DN's password, written as ldap_default_authtok (the file is 0600 root); None leaves the
    line out (a text to show or compare without the secret). ca_path: where the role writes directory_tls_ca.
    """
    domain = settings.get("directory_domain", "ldap")
    uris = settings["directory_ldap_uris"]
    verify = settings.get("directory_tls_verify", True)
    plain = any(uri.startswith("ldap://") for uri in uris)
    lines = ["# Written by gpuops.cluster.directory: changes here are lost at the next run.", "[sssd]",
             _line("domains", domain), _line("services", "nss, pam"), "", "[nss]",
             # root and the system's accounts are never looked up in the directory.
             _line("filter_users", "root"), _line("filter_groups", "root"),
             # The NSS responder's fast in-memory cache answers without asking the domain (300 s by default): no
             # longer than the entries' own timeout, so that a removed user is gone within it.
             _line("memcache_timeout", min(300, settings.get("directory_cache_timeout_s", DEFAULT_CACHE_TIMEOUT_S))),
             "", "[pam]",
             _line("offline_credentials_expiration", settings.get("directory_offline_credentials_days", 3)), "",
             "[domain/%s]" % domain, _line("id_provider", "ldap"), _line("auth_provider", "ldap"),
             _line("chpass_provider", "none"), _line("ldap_uri", ", ".join(uris)),
             _line("ldap_search_base", settings["directory_base_dn"].strip()),
             _line("ldap_schema", settings.get("directory_schema", "rfc2307"))]
    for key, option in (("directory_user_base_dn", "ldap_user_search_base"),
                        ("directory_group_base_dn", "ldap_group_search_base")):
        if settings.get(key):
            lines.append(_line(option, settings[key].strip()))
    if settings.get("directory_bind_dn"):
        lines.append(_line("ldap_default_bind_dn", settings["directory_bind_dn"].strip()))
        if bind_password is not None:
            lines += [_line("ldap_default_authtok_type", "password"), _line("ldap_default_authtok", bind_password)]
    if plain:
        lines.append(_line("ldap_id_use_start_tls", True))
    lines.append(_line("ldap_tls_reqcert", "demand" if verify else "never"))
    if (settings.get("directory_tls_ca") or "").strip():
        lines.append(_line("ldap_tls_cacert", ca_path))
    lines += [_line("enumerate", False), _line("cache_credentials", True),
              _line("entry_cache_timeout", settings.get("directory_cache_timeout_s", DEFAULT_CACHE_TIMEOUT_S)),
              _line("min_id", settings.get("directory_min_id", 1000))]
    return "\n".join(lines) + "\n"


# What ldapsearch reports, by the code it prints last in parentheses ("No such object (32)",
# "ldap_start_tls: Connect error (-11)"): an LDAP result code (RFC 4511) or one of libldap's own, negative. Its
# exit status is not that code (OpenLDAP 2.5 exits 1 for a failed StartTLS, 255 for a failed connection).
_CODE = re.compile(r"\((-?[0-9]{1,4})\)")
_LDAP_FIXES = {
    32: "the base DN does not exist on the server: check directory_base_dn (ldapsearch -x -H %(uri)s -s base -b '' "
        "namingContexts lists the server's)",
    49: "the server refused directory_bind_dn and directory_bind_password (invalid credentials): check both in "
        "your vault",
    13: "the server wants TLS (confidentiality required): use ldaps:// or directory_starttls: true",
    50: "directory_bind_dn may not read the base DN (insufficient access): give it read access, or another DN",
    48: "the server does not allow this bind (inappropriate authentication; anonymous binds may be off): set "
        "directory_bind_dn and directory_bind_password",
    # libldap's own: no connection, or no TLS session.
    -1: "cannot be reached from this host: check the name, the port and the firewall%(ldaps)s",
    -11: "the TLS session could not be set up: the server's certificate does not verify against directory_tls_ca "
         "(or the system's CAs without it), the name in the URI is not one its certificate names, or the server "
         "offers no TLS",
}


def ldapsearch_argv(uri, base_dn, bind_dn=""):
    """The ldapsearch of the base DN on one server, over the TLS SSSD uses (StartTLS required on ldap://, -ZZ),
    bound as bind_dn with the password on standard input (-y /dev/stdin: never on the command line), giving up on
    an unanswered connection after 10 s."""
    argv = ["ldapsearch", "-LLL", "-x", "-o", "nettimeout=10", "-H", uri]
    if uri.startswith("ldap://"):
        argv.append("-ZZ")
    if bind_dn:
        argv += ["-D", bind_dn, "-y", "/dev/stdin"]
    return argv + ["-b", base_dn, "-s", "base", "dn"]


def ldapsearch_result(uri, base_dn, rc, stdout, stderr):
    """{"ok": bool, "code", "message"}: one host's ``ldapsearch -LLL -x [-ZZ] -H uri -b base_dn -s base dn`` (its
    exit status and output), with the fix when it failed."""
    if not isinstance(rc, int) or isinstance(rc, bool):
        raise DirectoryError("ldapsearch's exit status must be a number, not %s" % shown(rc, 40))
    out = stdout if isinstance(stdout, str) else ""
    err = stderr if isinstance(stderr, str) else ""
    if rc == 0:
        dns = [line[3:].strip() for line in out.splitlines() if line.lower().startswith("dn:")]
        if any(dn.lower().replace(" ", "") == base_dn.lower().replace(" ", "") for dn in dns):
            return {"ok": True, "code": 0, "message": "%s answers, and %s exists" % (uri, base_dn)}
        return {"ok": False, "code": 0, "message": "%s answered without %s: check directory_base_dn" % (uri, base_dn)}
    codes = [int(code) for line in err.splitlines() for code in _CODE.findall(line)]
    code = codes[0] if codes else None
    said = " ".join(err.split())[:160] or "no message"
    if code in _LDAP_FIXES:
        ldaps = (", or the server's certificate does not verify (ldaps:// reports both alike)"
                 if uri.startswith("ldaps://") else "")
        return {"ok": False, "code": code, "message": "%s: %s (%s)" % (uri, _LDAP_FIXES[code] % {
            "uri": uri, "ldaps": ldaps}, said)}
    return {"ok": False, "code": code, "message": "%s: ldapsearch failed (rc %d): %s" % (uri, rc, said)}


def getent_entries(text):
    """{name: [fields]} of ``getent passwd`` or ``getent group`` output (colon-separated lines)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise DirectoryError("getent output must be text, not %s" % shown(text, 40))
    out = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(":")
        if len(fields) not in (4, 7) or not fields[0]:
            raise DirectoryError("getent line %d is neither a group (4 fields) nor a user (7): %s"
                                 % (number, shown(line, 80)))
        out[fields[0]] = fields
    return out


def resolved(user, text, min_id=1000):
    """{"ok", "message", "uid", "gid"}: whether ``getent passwd user`` resolved user from the directory."""
    entries = getent_entries(text)
    fields = entries.get(user)
    if fields is None or len(fields) != 7:
        return {"ok": False, "uid": None, "gid": None, "message": (
            "the test user %s does not resolve through SSSD (getent -s sss passwd %s): check directory_test_user, the search bases, "
            "and that sssd runs (systemctl status sssd; sssctl domain-status)" % (user, user))}
    uid, gid = fields[2], fields[3]
    if not (uid.isdigit() and gid.isdigit()):
        raise DirectoryError("getent passwd %s: uid %s and gid %s must be numbers" % (user, shown(uid), shown(gid)))
    if int(uid) < min_id:
        return {"ok": False, "uid": int(uid), "gid": int(gid), "message": (
            "%s resolves to uid %s, below directory_min_id %d: a local account of that name answers, not the "
            "directory's" % (user, uid, min_id))}
    return {"ok": True, "uid": int(uid), "gid": int(gid), "message": "%s resolves: uid %s, gid %s" % (user, uid, gid)}


_NOT_AFTER = re.compile(r"^notAfter=(.+)$", re.M)
_SUBJECT = re.compile(r"^subject=\s*(.+)$", re.M)


def certificate_result(rc, stdout, stderr):
    """{"ok", "message"}: ``openssl x509 -noout -subject -enddate -checkend 0`` of the CA (rc 1: it has expired)."""
    out = stdout if isinstance(stdout, str) else ""
    err = " ".join((stderr if isinstance(stderr, str) else "").split())
    subject = _SUBJECT.search(out)
    end = _NOT_AFTER.search(out)
    if rc == 0 and subject and end:
        return {"ok": True, "message": "directory_tls_ca %s is valid until %s"
                % (subject.group(1).strip(), end.group(1).strip())}
    if rc == 1 and end:
        return {"ok": False, "message": "directory_tls_ca %s expired on %s: give the CA's current certificate"
                                        % ((subject.group(1).strip() if subject else "?"), end.group(1).strip())}
    return {"ok": False, "message": "directory_tls_ca is not a certificate openssl can read (%s): give the PEM "
                                    "text of the CA" % (err[:160] or "no output")}


def account_members(mapping, group_text):
    """{"accounts": {account: [members]}, "missing": [groups the directory does not have]}.

    mapping: slurm_dbd_account_groups ({group: account}); group_text: ``getent group <each group>`` output (SSSD
    lists the members by name for either schema). Members of several groups mapped to one account are merged.
    """
    entries = getent_entries(group_text)
    accounts, missing = {}, []
    for group, account in sorted(mapping.items()):
        fields = entries.get(group)
        if fields is None or len(fields) != 4:
            missing.append(group)
            accounts.setdefault(account, [])
            continue
        members = [name for name in fields[3].split(",") if name]
        accounts[account] = sorted(set(accounts.get(account, []) + members))
    return {"accounts": accounts, "missing": missing}


def merge_accounts(accounts, members):
    """slurm_dbd_accounts with the directory's members added: each mapped account's users are the union of those the
    list names and those of its directory groups (account_members' "accounts"); an account the list lacks is added
    with its members. The list's own keys (fairshare, parent, limits) stay as given."""
    if not isinstance(accounts, list) or not all(isinstance(item, dict) and "name" in item for item in accounts):
        raise DirectoryError("slurm_dbd_accounts must be a list of accounts with a name, not %s" % shown(accounts, 60))
    if not isinstance(members, dict):
        raise DirectoryError("the directory's accounts must be a mapping of account to members, not %s"
                             % shown(members, 60))
    out, seen = [], set()
    for item in accounts:
        name = str(item["name"])
        if name in members:
            given = item.get("users") or []
            users = [user["name"] if isinstance(user, dict) else user for user in given]
            extra = [user for user in members[name] if user not in users]
            item = dict(item, users=list(given) + extra)
            seen.add(name)
        out.append(item)
    for name in sorted(set(members) - seen):
        out.append({"name": name, "description": "directory groups of gpuops.cluster.directory",
                    "users": list(members[name])})
    return out
