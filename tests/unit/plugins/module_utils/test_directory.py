# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Users from the site's directory (module_utils/site/_directory.py): the settings, SSSD's configuration, and the
preflight's readings of ldapsearch, getent and openssl over real outputs (tests/fixtures/directory)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site import _directory as directory

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "directory"))
CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
GOOD = {"directory_ldap_uris": ["ldap://ldap.example.org", "ldaps://ldap2.example.org:636"],
        "directory_base_dn": "dc=example,dc=org", "directory_bind_dn": "cn=reader,ou=system,dc=example,dc=org",
        "directory_bind_password": "secret", "directory_tls_ca": CA, "directory_test_user": "alice"}


def capture(name):
    """(rc, stdout, stderr) of one captured command."""
    def read(suffix):
        with open(os.path.join(FIXTURES, "%s.%s" % (name, suffix))) as handle:
            return handle.read()
    return int(read("rc")), read("stdout"), read("stderr")


def test_good_settings_pass():
    assert directory.settings_errors(GOOD) == []
    assert directory.settings_errors(dict(GOOD, directory_bind_dn="", directory_bind_password="")) == []


@pytest.mark.parametrize("change, message", [
    ({"directory_ldap_uris": []}, "directory_ldap_uris must list the directory's servers"),
    ({"directory_ldap_uris": ["ldap.example.org"]}, "is not an LDAP server's URI"),
    ({"directory_ldap_uris": ["ldap://h:70000"]}, "is not an LDAP server's URI"),
    ({"directory_ldap_uris": ["ldap://h/dc=x"]}, "is not an LDAP server's URI"),
    ({"directory_starttls": False}, "is plain LDAP and directory_starttls is false"),
    ({"directory_base_dn": "example.org"}, "directory_base_dn must be the directory's base DN"),
    ({"directory_base_dn": ""}, "directory_base_dn must be the directory's base DN"),
    ({"directory_user_base_dn": "people"}, "directory_user_base_dn must be a DN"),
    ({"directory_schema": "ad"}, "directory_schema must be rfc2307"),
    ({"directory_bind_password": ""}, "directory_bind_password is empty"),
    ({"directory_bind_dn": ""}, "directory_bind_password is set without directory_bind_dn"),
    ({"directory_tls_verify": "no"}, "directory_tls_verify must be true or false"),
    ({"directory_tls_ca": "/etc/ssl/ca.pem"}, "directory_tls_ca must be the PEM text"),
    ({"directory_cache_timeout_s": 5}, "directory_cache_timeout_s must be a whole number of seconds from 30"),
    ({"directory_min_id": 500}, "directory_min_id must be a whole number of ids"),
    ({"directory_test_user": "Alice Smith"}, "directory_test_user must be a user name"),
    ({"directory_domain": "my domain"}, "directory_domain must be a name"),
])
def test_each_bad_setting_is_named_with_its_fix(change, message):
    errors = directory.settings_errors(dict(GOOD, **change))
    assert len(errors) == 1 and message in errors[0], errors


def test_garbage_settings_never_raise():
    for bad in (None, [], "x", {"directory_ldap_uris": "ldap://h"}, {"directory_base_dn": 5}):
        assert directory.settings_errors(bad)


@pytest.mark.parametrize("dn, ok", [
    ("dc=example,dc=org", True), ("ou=people, dc=example, dc=org", True), ("cn=Smith\\, John,dc=x", True),
    ("uid=a+cn=b,dc=x", False), ("dc=example,", False), ("example", False), ("=x", False), ("", False),
])
def test_a_dn_is_read_as_rfc_4514_writes_it(dn, ok):
    assert directory.is_dn(dn) is ok


def test_sssd_conf_verifies_tls_uses_starttls_for_ldap_uris_and_never_enumerates():
    text = directory.sssd_conf(GOOD, "secret")
    lines = text.splitlines()
    assert "[domain/ldap]" in lines and "domains = ldap" in lines
    assert "ldap_uri = ldap://ldap.example.org, ldaps://ldap2.example.org:636" in lines
    assert "ldap_id_use_start_tls = true" in lines and "ldap_tls_reqcert = demand" in lines
    assert "ldap_tls_cacert = /etc/sssd/pki/gpuops-directory-ca.pem" in lines
    assert "enumerate = false" in lines and "cache_credentials = true" in lines
    assert "entry_cache_timeout = 5400" in lines and "offline_credentials_expiration = 3" in lines
    assert "memcache_timeout = 300" in lines
    assert "ldap_default_bind_dn = cn=reader,ou=system,dc=example,dc=org" in lines
    assert "ldap_default_authtok = secret" in lines
    # Without the password, the text can be shown and compared.
    assert "secret" not in directory.sssd_conf(GOOD)


def test_sssd_conf_turns_verification_off_only_when_told_and_ldaps_needs_no_starttls():
    settings = dict(GOOD, directory_ldap_uris=["ldaps://ldap.example.org"], directory_tls_verify=False,
                    directory_tls_ca="", directory_bind_dn="", directory_bind_password="")
    lines = directory.sssd_conf(settings).splitlines()
    assert "ldap_tls_reqcert = never" in lines
    assert not [line for line in lines if line.startswith(("ldap_id_use_start_tls", "ldap_tls_cacert",
                                                           "ldap_default_"))]


def test_the_sssd_conf_of_the_captures_is_what_the_role_writes():
    # tests/fixtures/directory/sssd.conf is the file SSSD ran with when getent answered (capture.sh).
    settings = {"directory_ldap_uris": ["ldap://ldap.example.org"], "directory_base_dn": "dc=example,dc=org",
                "directory_tls_ca": CA, "directory_cache_timeout_s": 30}
    with open(os.path.join(FIXTURES, "sssd.conf")) as handle:
        ran = [line for line in handle.read().splitlines() if line and not line.startswith("#")]
    written = [line for line in directory.sssd_conf(settings).splitlines() if line and not line.startswith("#")]
    # memcache_timeout came later, from the Molecule run (a removed user resolved from SSSD's in-memory cache for
    # its 300 s): the capture ran without it.
    assert [line for line in written if not line.startswith("memcache_timeout")] == ran
    assert "memcache_timeout = 30" in written


def test_ldapsearch_readings_of_real_answers_name_the_fix():
    uri, base = "ldap://ldap.example.org", "dc=example,dc=org"
    assert directory.ldapsearch_result(uri, base, *capture("ldapsearch-starttls-ok"))["ok"] is True
    assert directory.ldapsearch_result(uri, base, *capture("ldapsearch-bind-ok"))["ok"] is True
    cases = {"ldapsearch-no-base": (32, "the base DN does not exist on the server"),
             "ldapsearch-bad-bind": (49, "refused directory_bind_dn and directory_bind_password"),
             "ldapsearch-unreachable": (-1, "cannot be reached from this host"),
             "ldapsearch-no-ca": (-11, "the server's certificate does not verify against directory_tls_ca"),
             "ldapsearch-wrong-ca": (-11, "the server's certificate does not verify against directory_tls_ca"),
             "ldapsearch-hostname": (-11, "the name in the URI is not one its certificate names")}
    for name, (code, message) in cases.items():
        got = directory.ldapsearch_result(uri, base, *capture(name))
        assert got["ok"] is False and got["code"] == code and message in got["message"], (name, got)
    ldaps = directory.ldapsearch_result("ldaps://h", base, *capture("ldapsearch-unreachable"))
    assert ldaps["message"].endswith("or the server's certificate does not verify (ldaps:// reports both alike) "
                                     "(ldap_start_tls: Can't contact LDAP server (-1))")
    odd = directory.ldapsearch_result(uri, base, 1, "", "something else")
    assert odd["code"] is None and odd["message"] == uri + ": ldapsearch failed (rc 1): something else"


def test_getent_readings_of_real_answers():
    rc, out, err = capture("getent-passwd-alice")
    assert directory.resolved("alice", out) == {"ok": True, "uid": 20001, "gid": 30001,
                                                "message": "alice resolves: uid 20001, gid 30001"}
    rc, out, err = capture("getent-passwd-nobody")
    assert rc == 2 and directory.resolved("carol", out)["ok"] is False
    assert directory.resolved("alice", out, )["message"].startswith("the test user alice does not resolve through SSSD")
    local = "alice:x:999:999::/home/alice:/bin/sh\n"
    assert "below directory_min_id" in directory.resolved("alice", local)["message"]


def test_directory_groups_map_to_accounts_and_a_missing_group_is_named():
    rc, out, err = capture("getent-group-ml")
    got = directory.account_members({"ml-vision": "vision", "ml-speech": "speech"}, out)
    assert got == {"accounts": {"speech": ["bob"], "vision": ["alice", "bob"]}, "missing": []}
    rc, out, err = capture("getent-group-missing")
    got = directory.account_members({"ml-vision": "vision", "ml-audio": "audio"}, out)
    assert got == {"accounts": {"audio": [], "vision": ["alice", "bob"]}, "missing": ["ml-audio"]}
    merged = directory.account_members({"ml-vision": "ml", "ml-speech": "ml"}, capture("getent-group-ml")[1])
    assert merged["accounts"] == {"ml": ["alice", "bob"]}


def test_openssl_readings_of_the_ca():
    assert directory.certificate_result(*capture("openssl-ca-valid"))["message"].startswith(
        "directory_tls_ca CN = gpuops test CA is valid until ")
    expiring = directory.certificate_result(*capture("openssl-ca-expiring"))
    assert expiring["ok"] is False and "expired on" in expiring["message"]
    garbage = directory.certificate_result(*capture("openssl-ca-garbage"))
    assert garbage["ok"] is False and "is not a certificate openssl can read" in garbage["message"]


def test_garbage_output_is_refused_with_a_reason():
    for bad in ("alice:x:1", "::::", 5):
        with pytest.raises(directory.DirectoryError):
            directory.getent_entries(bad)
    with pytest.raises(directory.DirectoryError):
        directory.ldapsearch_result("ldap://h", "dc=x", "0", "", "")


def test_directory_members_join_the_listed_accounts_and_a_missing_account_is_added():
    accounts = [{"name": "vision", "fairshare": 30, "users": ["carol", {"name": "alice", "fairshare": 2}]},
                {"name": "chem", "users": ["dave"]}]
    merged = directory.merge_accounts(accounts, {"vision": ["alice", "bob"], "speech": ["bob"]})
    assert merged == [
        {"name": "vision", "fairshare": 30, "users": ["carol", {"name": "alice", "fairshare": 2}, "bob"]},
        {"name": "chem", "users": ["dave"]},
        {"name": "speech", "description": "directory groups of gpuops.cluster.directory", "users": ["bob"]}]
    assert accounts[0]["users"] == ["carol", {"name": "alice", "fairshare": 2}]  # the setting is not changed
    for bad in ((None, {}), ([{"users": []}], {}), ([], [])):
        with pytest.raises(directory.DirectoryError):
            directory.merge_accounts(*bad)


def test_the_preflight_search_requires_starttls_on_ldap_and_keeps_the_password_off_the_command_line():
    assert directory.ldapsearch_argv("ldap://h", "dc=x") == [
        "ldapsearch", "-LLL", "-x", "-o", "nettimeout=10", "-H", "ldap://h", "-ZZ", "-b", "dc=x", "-s", "base", "dn"]
    argv = directory.ldapsearch_argv("ldaps://h", "dc=x", "cn=r,dc=x")
    assert "-ZZ" not in argv and argv[argv.index("-y") + 1] == "/dev/stdin" and argv[argv.index("-D") + 1] == "cn=r,dc=x"


def test_the_mapping_of_groups_to_accounts_is_checked_with_the_setting_named():
    assert directory.account_group_errors({"ml-vision": "vision"}) == []
    assert directory.account_group_errors({"ml-vision": "Vision Group"}) == [
        "slurm_dbd_account_groups['ml-vision'] must be a Slurm account name (lower case), not 'Vision Group'"]
    assert directory.account_group_errors(["ml-vision"])[0].startswith("slurm_dbd_account_groups must map")
    assert directory.account_group_errors({"Bad Group": "x"}) == [
        "slurm_dbd_account_groups: 'Bad Group' is not a group name"]
