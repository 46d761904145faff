"""The test that goes with pytest_teardown_index.patch, in the form of pytest's own
testing/test_terminal.py (it uses only the `pytester` fixture). It passes on a pytest with
the patch and fails its second test on pytest 9.2.0 without it. Run it outside this
repository (whose plugin the inner runs would load):

    mkdir -p /tmp/t && cp benchmarks/upstream/test_teardown_index.py /tmp/t
    cd /tmp/t && python -m pytest -p pytester test_teardown_index.py
"""

from __future__ import annotations

import pytest
from _pytest.terminal import TerminalReporter

NOISY = """
import pytest

@pytest.fixture
def noisy(request):
    yield
    print("teardown of " + request.node.name)

@pytest.mark.parametrize("i", range(3))
def test_fails(noisy, i):
    assert i < 0
"""


def test_each_failure_is_followed_by_its_own_teardown_section(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(NOISY)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*_ test_fails?0? _*",
            "*- Captured stdout teardown -*",
            "teardown of test_fails[[]0]",
            "*_ test_fails?1? _*",
            "*- Captured stdout teardown -*",
            "teardown of test_fails[[]1]",
            "*_ test_fails?2? _*",
            "*- Captured stdout teardown -*",
            "teardown of test_fails[[]2]",
        ]
    )


def test_the_reports_are_scanned_once_not_once_per_failure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[str] = []
    getreports = TerminalReporter.getreports

    def counting(self: TerminalReporter, name: str = "") -> list[object]:
        scans.append(name)
        return getreports(self, name)

    monkeypatch.setattr(TerminalReporter, "getreports", counting)
    pytester.makepyfile(NOISY.replace("range(3)", "range(50)"))
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=50)
    assert scans.count("") <= 2  # 50 (one per failure) before the patch
