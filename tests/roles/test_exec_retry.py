"""The harness callback gpuops_exec_retry (tests/callback_plugins): a read-only exec that the
Docker API answered with rc 0 and nothing at all is asked once more; every other answer is
returned as it came, and a command that changes something is never run twice."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("gpuops_exec_retry",
                                               ROOT / "tests" / "callback_plugins" / "gpuops_exec_retry.py")
retry = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(retry)


def _connection(answers):
    calls = []

    class Fake:
        def exec_command(self, cmd, in_data=None, sudoable=False):
            calls.append(cmd)
            return answers.pop(0)

    return Fake, calls


def test_an_empty_answer_to_id_is_asked_again():
    cls, calls = _connection([(0, b"", b""), (0, b"0\n0\n", b"")])
    assert retry.wrap(cls)
    assert cls().exec_command(b"id -u && id -g") == (0, b"0\n0\n", b"")
    assert calls == [b"id -u && id -g"] * 2


def test_echo_home_is_asked_again():
    cls, calls = _connection([(0, b"", b""), (0, b"/root\n", b"")])
    retry.wrap(cls)
    assert cls().exec_command("/bin/sh -c 'echo ~ && sleep 0'") == (0, b"/root\n", b"")
    assert len(calls) == 2


def test_a_command_that_changes_something_runs_once():
    cls, calls = _connection([(0, b"", b"")])
    retry.wrap(cls)
    cmd = "/bin/sh -c '( umask 77 && mkdir -p \"` echo ~/.ansible/tmp `\" ) && sleep 0'"
    assert cls().exec_command(cmd) == (0, b"", b"")
    assert len(calls) == 1


def test_an_answer_with_output_or_an_error_is_kept():
    cls, calls = _connection([(0, b"0\n0\n", b""), (1, b"", b"boom")])
    retry.wrap(cls)
    assert cls().exec_command(b"id -u && id -g") == (0, b"0\n0\n", b"")
    assert cls().exec_command(b"id -u && id -g") == (1, b"", b"boom")
    assert len(calls) == 2


def test_wrapped_once():
    cls = _connection([])[0]
    assert retry.wrap(cls)
    assert not retry.wrap(cls)


def test_the_temporary_directory_is_made_again_with_mkdir_p():
    tmp = "/root/.ansible/tmp/ansible-tmp-1795946050.1169374-21624-277335114586594"
    cmd = ('( umask 77 && mkdir -p "` echo /root/.ansible/tmp `"&& mkdir "` echo %s `" && echo '
           'ansible-tmp-1795946050.1169374-21624-277335114586594="` echo %s `" )' % (tmp, tmp))
    answer = (0, ("ansible-tmp-1795946050.1169374-21624-277335114586594=%s\n" % tmp).encode(), b"")
    cls, calls = _connection([(0, b"", b""), answer])
    retry.wrap(cls)
    assert cls().exec_command(cmd) == answer
    assert calls[0] == cmd
    assert calls[1] == cmd.replace('&& mkdir "', '&& mkdir -p "')
    assert calls[1].count('mkdir -p "') == 2 and 'mkdir "' not in calls[1]
    # bytes stay bytes; an answer with output is kept
    cls, calls = _connection([(0, b"", b""), answer])
    retry.wrap(cls)
    assert cls().exec_command(cmd.encode()) == answer
    assert calls[1] == cmd.replace('&& mkdir "', '&& mkdir -p "').encode()
    cls, calls = _connection([answer])
    retry.wrap(cls)
    assert cls().exec_command(cmd) == answer
    assert len(calls) == 1
