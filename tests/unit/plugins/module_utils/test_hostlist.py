# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from hypothesis import given, settings, strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import (
    MAX_HOSTS,
    MAX_RANGE,
    HostlistError,
    compress,
    expand,
)


# --- compress ----------------------------------------------------------------


@pytest.mark.parametrize(
    "names, expected",
    [
        # the common case, and a gap
        (["gpu01", "gpu02", "gpu03", "gpu07"], "gpu[01-03,07]"),
        # zero padding is kept across a change in digit count
        (["gpu%02d" % i for i in range(1, 11)], "gpu[01-10]"),
        (["n098", "n099", "n100"], "n[098-100]"),
        # Slurm: unpadded numbers of different lengths share one range
        (["n9", "n10"], "n[9-10]"),
        (["n8", "n9", "n10", "n11"], "n[8-11]"),
        (["n98", "n99", "n100"], "n[98-100]"),
        (["n0", "n1"], "n[0-1]"),
        # ... but a padded and an unpadded number never do
        (["n08", "n9", "n10"], "n[08,9-10]"),
        (["n08", "n09", "n10", "n9"], "n[08,9,09-10]"),
        (["n1", "n01"], "n[1,01]"),
        (["n9", "n010"], "n[9,010]"),
        # input order does not matter inside a group; duplicates go
        (["gpu07", "gpu03", "gpu01", "gpu02", "gpu03"], "gpu[01-03,07]"),
        (["n10", "n2", "n1"], "n[1-2,10]"),
        # a single host stays plain, numbered or not
        (["gpu01"], "gpu01"),
        (["gpu01", "gpu01"], "gpu01"),
        (["login"], "login"),
        # several prefixes: comma-joined, in order of first appearance
        (["login", "gpu02", "gpu01", "cpu1", "login"], "login,gpu[01-02],cpu1"),
        (["cpu2", "gpu1", "cpu1", "gpu2"], "cpu[1-2],gpu[1-2]"),
        (["b", "a", "c"], "b,a,c"),
        # a name without digits is not the prefix of the numbered names
        (["gpu", "gpu1", "gpu2"], "gpu,gpu[1-2]"),
        # the LAST run of digits is the number
        (["rack1-node03", "rack1-node04", "rack2-node01"], "rack1-node[03-04],rack2-node01"),
        (["a1b2", "a1b3", "a2b2"], "a1b[2-3],a2b2"),
        # text after the number is a suffix shared by the bracket
        (["node01-ib", "node02-ib", "node03"], "node[01-02]-ib,node03"),
        (["gpu1.lab", "gpu2.lab", "gpu3.lab"], "gpu[1-3].lab"),
        # names that are all digits
        (["1", "2", "3", "5"], "[1-3,5]"),
        # numbers beyond 64 bits are still numbers
        (["n18446744073709551616", "n18446744073709551617"], "n[18446744073709551616-18446744073709551617]"),
        ([], ""),
    ],
)
def test_compress(names, expected):
    assert compress(names) == expected


@pytest.mark.parametrize(
    "names",
    [
        ("gpu02", "gpu01"),
        (name for name in ["gpu02", "gpu01"]),
        {"gpu02", "gpu01"},
        frozenset(["gpu01", "gpu02"]),
    ],
    ids=["tuple", "generator", "set", "frozenset"],
)
def test_compress_takes_any_iterable(names):
    assert compress(names) == "gpu[01-02]"


def test_compress_orders_a_set_deterministically():
    assert compress({"b1", "a1", "c"}) == "a1,b1,c"


@pytest.mark.parametrize(
    "names, message",
    [
        ("gpu01", "host names must be a list of strings, got str"),
        (b"gpu01", "host names must be a list of strings, got bytes"),
        ({"gpu01": 1}, "host names must be a list of strings, got dict"),
        (None, "host names must be a list of strings, got NoneType"),
        (3, "host names must be a list of strings, got int"),
        (["gpu01", 2], "host name #2 must be a string, got int"),
        (["gpu01", None], "host name #2 must be a string, got NoneType"),
        (["gpu01", ""], "host name #2 is empty"),
        (["gpu 01"], "host name #1 'gpu 01' contains ' ', which a hostlist uses to separate names"),
        (["gpu01\n"], "host name #1 'gpu01\\n' contains '\\n', which a hostlist uses to separate names"),
        (["a,b"], "host name #1 'a,b' contains ',', which a hostlist uses to separate names"),
        (["gpu[01-02]"], "host name #1 'gpu[01-02]' contains '[', which a hostlist uses for ranges"),
        (["gpu01]"], "host name #1 'gpu01]' contains ']', which a hostlist uses for ranges"),
    ],
)
def test_compress_errors(names, message):
    with pytest.raises(HostlistError) as exc:
        compress(names)
    assert str(exc.value) == message


def test_compress_error_shortens_a_long_name():
    name = "x" * 100 + " y"
    with pytest.raises(HostlistError) as exc:
        compress([name])
    assert str(exc.value) == (
        "host name #1 '%s...' contains ' ', which a hostlist uses to separate names" % ("x" * 77))


# --- expand ------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("gpu[01-03,07]", ["gpu01", "gpu02", "gpu03", "gpu07"]),
        ("gpu01", ["gpu01"]),
        ("login", ["login"]),
        ("gpu[7]", ["gpu7"]),
        ("gpu[08-10]", ["gpu08", "gpu09", "gpu10"]),
        ("n[9-10]", ["n9", "n10"]),
        ("n[08,9-10]", ["n08", "n9", "n10"]),
        ("n[098-100]", ["n098", "n099", "n100"]),
        # Slurm: the width of lo pads the whole range; hi's padding is ignored
        ("n[8-010]", ["n8", "n9", "n10"]),
        ("n[01-3]", ["n01", "n02", "n03"]),
        # a suffix after the brackets
        ("a[1-2]b", ["a1b", "a2b"]),
        ("node[01-02]-ib", ["node01-ib", "node02-ib"]),
        # comma lists outside brackets, and whitespace as a separator
        ("gpu[01-02],cpu1", ["gpu01", "gpu02", "cpu1"]),
        ("gpu[01-02] cpu1", ["gpu01", "gpu02", "cpu1"]),
        (" gpu1 ,\tgpu2\n", ["gpu1", "gpu2"]),
        # several bracket groups: cartesian product, left to right
        ("rack[1-2]-node[01-02]", ["rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"]),
        ("a[1-2]b[3,5]c", ["a1b3c", "a1b5c", "a2b3c", "a2b5c"]),
        ("[1-2][1-2]", ["11", "12", "21", "22"]),
        # the expression's order, duplicates kept (as scontrol show hostnames)
        ("n[3,1-2]", ["n3", "n1", "n2"]),
        ("n1,n[1-2]", ["n1", "n1", "n2"]),
        ("[1-3]", ["1", "2", "3"]),
    ],
)
def test_expand(expr, expected):
    assert expand(expr) == expected


def test_expand_biggest_range():
    names = expand("n[1-%d]" % MAX_RANGE)
    assert len(names) == MAX_RANGE
    assert names[0] == "n1" and names[-1] == "n%d" % MAX_RANGE


@pytest.mark.parametrize(
    "expr, message",
    [
        (None, "a hostlist expression must be a string, got NoneType"),
        (["gpu01"], "a hostlist expression must be a string, got list"),
        ("", "empty hostlist expression"),
        (" \n", "empty hostlist expression"),
        ("gpu[01-", "unclosed '[' at character 4 of 'gpu[01-'"),
        ("gpu[01-02", "unclosed '[' at character 4 of 'gpu[01-02'"),
        ("gpu01]", "unmatched ']' at character 6 of 'gpu01]'"),
        ("gpu[1]]", "unmatched ']' at character 7 of 'gpu[1]]'"),
        ("a[1[2]]", "nested '[' at character 4 of 'a[1[2]]': brackets cannot be nested"),
        ("gpu[3-1]", "descending range '3-1' at character 5 of 'gpu[3-1]': 3 > 1"),
        ("gpu[1,10-09]", "descending range '10-09' at character 7 of 'gpu[1,10-09]': 10 > 9"),
        ("gpu[]", "empty brackets at character 4 of 'gpu[]'"),
        ("gpu[1,,2]", "empty range at character 7 of 'gpu[1,,2]'"),
        ("gpu[1,]", "empty range at character 7 of 'gpu[1,]'"),
        ("gpu[a]", "invalid range 'a' at character 5 of 'gpu[a]': expected a number or lo-hi"),
        ("gpu[1-]", "invalid range '1-' at character 5 of 'gpu[1-]': expected a number or lo-hi"),
        ("gpu[-1]", "invalid range '-1' at character 5 of 'gpu[-1]': expected a number or lo-hi"),
        ("gpu[1-2-3]", "invalid range '1-2-3' at character 5 of 'gpu[1-2-3]': expected a number or lo-hi"),
        ("gpu[ 1]", "invalid range ' 1' at character 5 of 'gpu[ 1]': expected a number or lo-hi"),
        ("bgl[123x456]",
         "invalid range '123x456' at character 5 of 'bgl[123x456]': expected a number or lo-hi"),
        ("a,,b", "empty host name before the ',' at character 3 of 'a,,b'"),
        ("a, ,b", "empty host name before the ',' at character 4 of 'a, ,b'"),
        (",a", "empty host name before the ',' at character 1 of ',a'"),
        ("a,", "empty host name after the ',' at character 2 of 'a,'"),
        ("a , ", "empty host name after the ',' at character 3 of 'a , '"),
        ("a\nb[", "unclosed '[' at character 4 of 'a\\nb['"),
        ("n[0-%d]" % MAX_RANGE,
         "range '0-%d' at character 3 of 'n[0-%d]' holds %d hosts; a range may hold at most %d"
         % (MAX_RANGE, MAX_RANGE, MAX_RANGE + 1, MAX_RANGE)),
        ("n[1-60000]x[1-60000]",
         "'n[1-60000]x[1-60000]' expands to more than %d host names" % MAX_HOSTS),
        ("n[1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,"
         "1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,1-60000]",
         "brackets at character 2 of 'n[1-60000,1-60000,1-60000,1-60000,1-60000,1-60000,"
         "1-60000,1-60000,1-60000,1-6...' hold more than %d hosts" % MAX_HOSTS),
        (",".join(["n[1-60000]"] * 18),
         "'n[1-60000],n[1-60000],n[1-60000],n[1-60000],n[1-60000],n[1-60000],n[1-60000],...'"
         " expands to more than %d host names" % MAX_HOSTS),
    ],
)
def test_expand_errors(expr, message):
    with pytest.raises(HostlistError) as exc:
        expand(expr)
    assert str(exc.value) == message


def test_hostlist_error_is_a_value_error():
    assert issubclass(HostlistError, ValueError)


# --- round trips -------------------------------------------------------------


@pytest.mark.parametrize(
    "expr",
    ["gpu[01-03,07]", "n[08,9-10]", "n[9-10]", "login,gpu[01-02],cpu1", "node[01-02]-ib,node03",
     "rack1-node[03-04],rack2-node01", "n[098,99,099-100]", "[1-3,5]", "gpu01"],
)
def test_compressed_expressions_are_fixed_points(expr):
    assert compress(expand(expr)) == expr


def test_compress_of_a_product_keeps_every_host():
    names = expand("rack[1-2]-node[01-02]")
    assert compress(names) == "rack1-node[01-02],rack2-node[01-02]"


PREFIXES = ["gpu", "n", "rack1-node", "cpu-", ""]
SUFFIXES = ["", "", "-ib", ".lab"]
PLAIN_NAMES = ["login", "head", "gpu", "n-"]


@st.composite
def host(draw):
    """(name, group, number, digit count) of a valid host name.

    Built from its parts, so the test's idea of the group and the number does
    not come from the code under test.  A prefix never ends in a digit and a
    suffix holds none, so the number is the last run of digits, as in Slurm.
    """
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        name = draw(st.sampled_from(PLAIN_NAMES))
        return name, (name,), 0, 0
    prefix = draw(st.sampled_from(PREFIXES))
    suffix = draw(st.sampled_from(SUFFIXES))
    number = draw(st.integers(min_value=0, max_value=130))
    width = draw(st.integers(min_value=1, max_value=4))  # 1: not zero padded
    digits = "%0*d" % (width, number)
    return prefix + digits + suffix, (prefix, suffix), number, len(digits)


def slurm_order(hosts):
    """Unique names: groups in order of first appearance, numbers ascending within one."""
    groups = {}
    for name, group, number, width in hosts:
        groups.setdefault(group, {})[name] = (number, width)
    ordered = []
    for members in groups.values():
        ordered.extend(sorted(members, key=members.get))
    return ordered


@settings(max_examples=1000, deadline=None, derandomize=True, database=None)
@given(st.lists(host(), min_size=1, max_size=40))
def test_round_trip(hosts):
    names = [name for name, _group, _number, _width in hosts]
    expr = compress(names)
    assert expand(expr) == slurm_order(hosts)
    # the expression is canonical: compressing its expansion gives it back
    assert compress(expand(expr)) == expr
    # the input order only moves whole groups
    assert sorted(expand(compress(names[::-1]))) == sorted(set(names))
