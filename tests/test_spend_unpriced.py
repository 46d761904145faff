"""The spend line counts the answers of a model without a price that no case graded: calls
start ahead of pytest, and -x stops the run before their cases."""

from __future__ import annotations

import json
import re
import sys

import pytest

from tests.conftest import XDIST, MakeProject

# `bad` answers wrong once three others are answered (or after 10 s), so that -x stops the
# run after their calls, ahead of their cases; every answer is logged (by every process)
AGENT = """
import time


def answered():
    with open("answers.log") as log:
        return log.read().split()


def run(prompt, request):
    with open("answers.log", "a") as log:
        log.write(request.case.id + "\\n")
    if request.case.id != "bad":
        return "yes"
    waited = time.monotonic() + 10
    while len(answered()) < 4 and time.monotonic() < waited:
        time.sleep(0.01)
    return "no"
"""


def project(cases: int) -> str:
    tests = "".join(f"  - {{id: c{i}, input: 'c{i}?', reference: 'yes'}}\n" for i in range(cases))
    return (
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run", concurrency: 4}\n'
        "tests:\n  - {id: bad, input: 'bad?', reference: 'yes'}\n" + tests
    )


def test_answers_of_a_model_without_a_price_that_no_case_graded_are_counted(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The line said 1 answer of a model without a price: the 3 answered ahead of the stop
    were left out, where a priced model's were counted in dollars."""
    make_project("p", project(3), {"agent.py": AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider", "-x", "--arena-json=r.json")
    result.assert_outcomes(failed=1)
    spend = json.loads((pytester.path / "r.json").read_text())["spend"]
    assert (spend["unpriced_answers"], spend["unpriced_ungraded_answers"]) == (1, 3)  # as said
    assert sorted((pytester.path / "answers.log").read_text().split()) == [
        "bad",
        "c0",
        "c1",
        "c2",
    ]
    result.stdout.fnmatch_lines(
        [
            "arena: 1 answer graded; $0.00 spent on models and judges, and an unknown amount"
            " on 1 answer of models without a price (set price: in models.define), and an"
            " unknown amount on 3 answers of models without a price that no case was graded"
            " by (of cases the run stopped, skipped, cut short or ran again)"
        ]
    )
    # a whole run graded every answer: nothing more is said
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "arena: 4 answers graded; $0.00 spent on models and judges, and an unknown amount"
            " on 4 answers of models without a price (set price: in models.define)"
        ]
    )
    result.stdout.no_fnmatch_line("*no case was graded by*")


# the same agent as a command (a python agent's calls are not started ahead under xdist);
# each answer is logged once printed, and `bad` logs a line once four others are, then
# answers a second later: arena has those four by its stop
COMMAND_AGENT = """
import json, os, sys, time

log = sys.argv[1]
case = json.loads(os.environ["ARENA_CASE"])["id"]


def answered():
    with open(log) as lines:
        return lines.read().split()


if case == "bad":
    waited = time.monotonic() + 10
    while len(answered()) < 4 and time.monotonic() < waited:
        time.sleep(0.01)
    with open(log, "a") as out:
        out.write("|\\n")
    time.sleep(1)
print("no" if case == "bad" else "yes", flush=True)
with open(log, "a") as out:
    out.write(case + "\\n")
"""


def test_xdist_workers_count_theirs_for_the_controller(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The controller has no calls of its own: the workers say how many such answers they
    got, as they say what they paid."""
    log = pytester.path / "answers.log"
    command = json.dumps([sys.executable, "agent.py", str(log)])
    text = project(9).replace(
        '{connector: python, callable: "agent:run", concurrency: 4}',
        f"{{connector: command, command: {command}, concurrency: 4}}",
    )
    assert "connector: command" in text
    make_project("p", text, {"agent.py": COMMAND_AGENT})
    log.write_text("")
    result = pytester.runpytest_subprocess(*XDIST, "-p", "no:cacheprovider", "-n", "2", "-x", "-rA")
    before, waited, after = log.read_text().partition("|")
    assert waited, result.stdout.str()
    graded = set(re.findall(r"^(?:PASSED|FAILED) \S+::(\w+)\[agent\]", result.stdout.str(), re.M))
    assert "bad" in graded, result.stdout.str()
    # answers a second ahead of the stop reached arena; those at the stop may not have
    surely = set(before.split()) - graded
    maybe = surely | set(after.split()) - graded
    said = re.search(
        r"an unknown amount on (\d+) answers? of models without a price that no"
        r" case was graded by \(of cases the run",
        result.stdout.str(),
    )
    counted = int(said[1]) if said else 0
    assert len(surely) <= counted <= len(maybe), (
        sorted(surely),
        sorted(maybe),
        result.stdout.str(),
    )
