# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""file_bundle against a temporary directory: writes, idempotence, check mode, absent, errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import grp
import json
import os
import pwd

import pytest

from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import file_bundle

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def run(capsys, files, check=False, diff=False):
    args = {"files": files, "_ansible_check_mode": check, "_ansible_diff": diff}
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            file_bundle.main()
    return json.loads(capsys.readouterr().out)


def test_writes_then_idempotent(tmp_path, capsys):
    conf = str(tmp_path / "etc" / "slurm.conf")
    files = [
        {"path": str(tmp_path / "etc"), "state": "directory", "mode": "0755", "owner": ME, "group": MY_GROUP},
        {"path": conf, "content": "ClusterName=lab\n", "mode": "0644", "owner": ME, "group": MY_GROUP},
    ]
    first = run(capsys, files)
    assert first["changed"] is True
    assert first["changed_paths"] == [str(tmp_path / "etc"), conf]
    with open(conf) as handle:
        assert handle.read() == "ClusterName=lab\n"
    assert oct(os.stat(conf).st_mode & 0o777) == "0o644"
    second = run(capsys, files)
    assert second["changed"] is False
    assert second["changed_paths"] == []


def test_changes_content_and_mode_only_where_needed(tmp_path, capsys):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    run(capsys, [{"path": a, "content": "1\n", "mode": "0644"}, {"path": b, "content": "2\n", "mode": "0644"}])
    result = run(capsys, [{"path": a, "content": "1\n", "mode": "0600"}, {"path": b, "content": "3\n", "mode": "0644"}],
                 diff=True)
    assert result["changed_paths"] == [a, b]
    assert oct(os.stat(a).st_mode & 0o777) == "0o600"
    assert result["diff"] == [{"before_header": b, "after_header": b, "before": "2\n", "after": "3\n"}]


def test_check_mode_changes_nothing(tmp_path, capsys):
    target = str(tmp_path / "new.conf")
    result = run(capsys, [{"path": target, "content": "x\n"}], check=True)
    assert result["changed"] is True
    assert not os.path.exists(target)


def test_absent(tmp_path, capsys):
    target = tmp_path / "dropin.conf"
    target.write_text("x")
    assert run(capsys, [{"path": str(target), "state": "absent"}])["changed_paths"] == [str(target)]
    assert not target.exists()
    assert run(capsys, [{"path": str(target), "state": "absent"}])["changed"] is False


def test_attributes_only_without_content(tmp_path, capsys):
    target = tmp_path / "key"
    target.write_text("secret")
    os.chmod(str(target), 0o644)
    result = run(capsys, [{"path": str(target), "mode": "0400"}])
    assert result["changed"] is True
    assert target.read_text() == "secret"
    assert oct(os.stat(str(target)).st_mode & 0o777) == "0o400"


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"path": "/nonexistent-dir-xyz/file", "content": "x"},
         "file_bundle: /nonexistent-dir-xyz/file: directory /nonexistent-dir-xyz does not exist; list it before the file"),
        ({"path": "/nonexistent-file-xyz", "mode": "0644"},
         "file_bundle: /nonexistent-file-xyz does not exist and no content was given for it"),
    ],
)
def test_errors(capsys, entry, message):
    result = run(capsys, [entry])
    assert result["failed"] is True
    assert result["msg"] == message


def run_args(capsys, args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            file_bundle.main()
    return json.loads(capsys.readouterr().out)


def test_accounts_are_planned_before_files_and_checked_in_check_mode(tmp_path, capsys):
    # A uid the host already gives to another account: refused before any file is written.
    other = pwd.getpwuid(os.getuid())
    target = str(tmp_path / "never")
    result = run_args(capsys, {
        "users": [{"name": "gpuopsnotauser", "uid": other.pw_uid, "group": MY_GROUP, "home": "/nonexistent",
                   "shell": "/usr/sbin/nologin"}],
        "files": [{"path": target, "content": "x\n"}],
        "_ansible_check_mode": True,
    })
    assert result["failed"] is True
    assert result["msg"] == ("file_bundle: uid %d for user gpuopsnotauser is held by user %s on this host: choose "
                             "another uid, or remove or renumber %s" % (other.pw_uid, other.pw_name, other.pw_name))
    assert not os.path.exists(target)


def test_accounts_to_create_are_reported_in_check_mode(tmp_path, capsys):
    free_gid = max(g.gr_gid for g in grp.getgrall() if g.gr_gid < 60000) + 1
    target = str(tmp_path / "f")
    result = run_args(capsys, {
        "groups": [{"name": "gpuopsnotagroup", "gid": free_gid, "system": True}],
        "files": [{"path": target, "content": "x\n"}],
        "_ansible_check_mode": True,
        "_ansible_diff": True,
    })
    assert result["changed"] is True
    assert result["account_changes"] == ["group gpuopsnotagroup: created with gid %d" % free_gid]
    assert result["changed_paths"] == [target]
    assert result["diff"][0] == {"before_header": "accounts", "after_header": "accounts", "before": "",
                                 "after": "group gpuopsnotagroup: created with gid %d\n" % free_gid}
    assert not os.path.exists(target)


def test_bad_account_input_fails_with_a_message(capsys):
    result = run_args(capsys, {"groups": [{"name": "Bad Name", "gid": 5}], "files": []})
    assert result["failed"] is True
    assert result["msg"].startswith("file_bundle: groups[0].name must be a POSIX account name")


def test_directory_gets_missing_parents(tmp_path, capsys):
    deep = str(tmp_path / "var" / "lib" / "slurm" / "slurmctld")
    result = run(capsys, [{"path": deep, "state": "directory", "mode": "0750"}])
    assert result["changed_paths"] == [deep]
    assert oct(os.stat(str(tmp_path / "var" / "lib")).st_mode & 0o777) == "0o755"
    assert oct(os.stat(deep).st_mode & 0o777) == "0o750"
