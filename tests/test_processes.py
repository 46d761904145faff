"""Programs run for a case (script scorers, command agents) are done when they exit, and
nothing they start outlives them: not a background child, not on a timeout or Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_arena.engine import processes
from tests.conftest import MakeProject, alive, running
from tests.projects import slow_agent

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

# Prints its answer, leaves a child holding stdout and stderr open for 300 s, and exits.
LEAVES_A_CHILD = """
import os, subprocess, sys
from pathlib import Path
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
Path(os.environ["PIDS"], str(child.pid)).touch()
print(sys.argv[1] if len(sys.argv) > 1 else "1", flush=True)
"""


HANG = "import time; time.sleep(300)\n"


def program(tmp_path: Path, text: str) -> tuple[Path, dict[str, str], Path]:
    """The script, its environment, and the folder where its child leaves its pid."""
    script = tmp_path / "program.py"
    script.write_text(text)
    pids = tmp_path / "pids"
    pids.mkdir()
    return script, {**os.environ, "PIDS": str(pids)}, pids


def wait_gone(pids: Path, seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive(pids)


def test_a_program_is_done_when_it_exits_and_its_background_child_is_ended(
    tmp_path: Path,
) -> None:
    script, env, pids = program(tmp_path, LEAVES_A_CHILD)
    started = time.monotonic()
    done = processes.run([sys.executable, str(script)], cwd=tmp_path, env=env, timeout=30)
    assert time.monotonic() - started < 10  # not the child's 300 s, nor the timeout
    assert (done.returncode, done.stdout.strip()) == (0, b"1")
    assert len(list(pids.iterdir())) == 1
    assert wait_gone(pids) == []


def test_the_async_run_is_done_when_the_agent_exits_too(tmp_path: Path) -> None:
    script, env, pids = program(tmp_path, LEAVES_A_CHILD)

    async def go() -> processes.Finished:
        return await asyncio.wait_for(
            processes.arun([sys.executable, str(script), "hi"], cwd=tmp_path, env=env), 30
        )

    done = asyncio.run(go())
    assert done.stdout.strip() == b"hi"
    assert len(list(pids.iterdir())) == 1
    assert wait_gone(pids) == []


def test_a_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    script, env, pids = program(tmp_path, LEAVES_A_CHILD + HANG)
    with pytest.raises(processes.TimedOut, match="timed out after 1 s"):
        processes.run([sys.executable, str(script)], cwd=tmp_path, env=env, timeout=1)
    assert len(list(pids.iterdir())) == 1
    assert wait_gone(pids) == []


@pytest.mark.parametrize(
    ("code", "said"),
    [(3, "exited with status 3"), (-9, "was killed by signal 9 (SIGKILL)"), (-15, "*(SIGTERM)")],
)
def test_how_a_program_ended_is_said_plainly(code: int, said: str) -> None:
    import fnmatch

    assert fnmatch.fnmatch(processes.ended(code), said)


def test_a_script_scorer_that_leaves_a_child_scores_at_once_and_the_child_is_gone(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    root = make_project(
        "p",
        """
        models: [sim_perfect]
        scoring:
          - {command: ["python", "checks/leaves.py"], timeout: 30}
        tests:
          - {id: a, input: "1", reference: "1"}
        """,
        {"checks/leaves.py": LEAVES_A_CHILD},
    )
    (root / "arena.yaml").write_text(
        (root / "arena.yaml").read_text().replace('"python"', repr(sys.executable))
    )
    os.environ["PIDS"] = str(pids)
    try:
        started = time.monotonic()
        result = pytester.runpytest("-q")
    finally:
        del os.environ["PIDS"]
    result.assert_outcomes(passed=1)
    assert time.monotonic() - started < 15  # it waited the full 30 s timeout before
    assert len(list(pids.iterdir())) == 1
    assert wait_gone(pids) == []


def test_a_killed_script_scorer_says_which_signal(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        f"""
        models: [sim_perfect]
        scoring:
          - {{command: [{sys.executable!r}, "checks/dies.py"]}}
        tests:
          - {{id: a, input: "1", reference: "1"}}
        """,
        {"checks/dies.py": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"},
    )
    result = pytester.runpytest("-q", "-rf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*was killed by signal 9 (SIGKILL)*"])
    assert "status -9" not in result.stdout.str()


def test_a_command_agent_that_leaves_a_child_answers_at_once(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    make_project(
        "p",
        textwrap.dedent(f"""
        models:
          default: [agent]
          define:
            agent:
              connector: command
              command: [{sys.executable!r}, agent.py, "1"]
              env: {{PIDS: {str(pids)!r}}}
              timeout: 30
        tests:
          - {{id: a, input: "1", reference: "1"}}
        """),
        {"agent.py": LEAVES_A_CHILD},
    )
    started = time.monotonic()
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert time.monotonic() - started < 15
    assert wait_gone(pids) == []


def test_ctrl_c_during_a_script_scorer_ends_its_group(tmp_path: Path) -> None:
    """The Ctrl-C path of `run`: an interrupt while waiting kills the group and goes on."""
    script, env, pids = program(tmp_path, LEAVES_A_CHILD + HANG)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            processes.run([sys.executable, str(script)], cwd=tmp_path, env=env, timeout=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(list(pids.iterdir())) == 1
    assert wait_gone(pids) == []


def test_a_case_in_any_script_reaches_its_programs_under_an_ascii_locale(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under LC_ALL=C (Python's UTF-8 mode off) a case's "Où est le café?" failed every
    script scorer and command agent: UnicodeEncodeError: 'ascii' codec can't encode."""
    make_project(
        "loc",
        """
        models:
          default: [agent]
          define:
            agent: {connector: command, command: [cat]}
        scorers: {default: says}
        tests:
          - {id: a, input: "Où est le café?", reference: "café"}
        """,
        files={
            "scorers/says.sh": '#!/bin/sh\ncase "$ARENA_SCORER_CONTEXT" in *café*) echo 1;; *) echo 0;; esac\n'
        },
    )
    (pytester.path / "projects/loc/scorers/says.sh").chmod(0o755)
    monkeypatch.setenv("LC_ALL", "C")
    monkeypatch.setenv("PYTHONUTF8", "0")
    result = pytester.run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["PASSED projects/loc/arena.yaml::a[[]agent]*"])


def test_an_ascii_terminal_gets_readable_boards_and_arena_commands_do_not_crash(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PYTHONIOENCODING=ascii the board became one line of "\\n" and "\\xb1" escapes,
    and `arena models` ended in UnicodeEncodeError ('\\u2013')."""
    make_project("quiz", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    result = pytester.run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "  rank  *model*composite*",
            "     1  sim_perfect  *100.0% +-39.7*",
            "composite = 1.00*accuracy",
        ]
    )
    assert "\\n" not in result.stdout.str()
    header, rule = result.stdout.lines[-6:-4]  # the board's columns stay aligned
    assert len(header) == len(rule) == len(result.stdout.lines[-4])
    models = pytester.run(
        sys.executable, "-m", "pytest_arena", "models", "--project", "projects/quiz"
    )
    assert models.ret == 0, models.stderr.str()
    assert "UnicodeEncodeError" not in models.stderr.str()


def test_paths_and_inherited_values_reach_programs_in_the_locales_bytes(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a Latin-1 locale every value was re-encoded as UTF-8: a project folder named
    "café" reached its agent as caf\\xc3\\xa9, a folder that does not exist, and an inherited
    variable's bytes changed."""
    import shutil
    import subprocess

    if shutil.which("localedef") is None:
        pytest.skip("localedef (glibc) makes the Latin-1 locale this test runs in")
    locales = pytester.path / "locales"
    locales.mkdir()
    made = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(locales / "en_US.ISO-8859-1")],
        capture_output=True,
    )
    assert (locales / "en_US.ISO-8859-1").is_dir(), made.stderr
    folder = os.path.join(os.fsencode(pytester.path), b"projects", b"caf\xe9")
    os.makedirs(folder)
    with open(os.path.join(folder, b"arena.yaml"), "w") as out:
        out.write(
            "models:\n  default: [agent]\n  define:\n"
            "    agent: {connector: command, command: [python, agent.py]}\n"
            "tests:\n  - {id: a, input: x, reference: 'yes', eval_type: exact_match}\n"
        )
    with open(os.path.join(folder, b"agent.py"), "w") as out:
        out.write(
            "import os, sys\n"
            "root = os.environb[b'ARENA_PROJECT_ROOT']\n"
            "same = os.environb[b'INHERITED'] == b'caf\\xe9'\n"
            "sys.stdout.write('yes' if os.path.isdir(root) and same else 'no: %r' % root)\n"
        )
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for name, value in (("LOCPATH", str(locales)), ("LC_ALL", "en_US.ISO-8859-1")):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONUTF8", "0")
    monkeypatch.setenv("PYTHONCOERCECLOCALE", "0")
    env = {**os.environ, "INHERITED": "x"}
    env_bytes = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    env_bytes[b"INHERITED"] = b"caf\xe9"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA"],
        cwd=pytester.path,
        env=env_bytes,
        capture_output=True,
    )
    assert result.returncode == 0, result.stdout.decode("latin-1")


@pytest.fixture(params=["asyncio", "uvloop"])
def engine_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The event loop of the run's engine: asyncio's own, or uvloop's where it is installed
    (whose stdin=PIPE is a socket, as asyncio's was in the first releases of Python 3.10)."""
    if request.param == "uvloop":
        pytest.importorskip("uvloop", reason="the 'uvloop' extra is not installed")
    else:
        monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` fails
    return str(request.param)


def stdin_project(make_project: MakeProject, agent: str, prompt: str, reference: str) -> Path:
    """A project whose one case gives `prompt` to the bash script `agent`, 1 s to answer."""
    root = make_project(
        "p",
        f"""
        models:
          default: [agent]
          define:
            agent: {{connector: command, command: ./agent.sh, timeout: 1, max_retries: 0}}
        tests:
          - {{id: a, input: {json.dumps(prompt)}, reference: {json.dumps(reference)}}}
        """,
        {"agent.sh": agent},
    )
    (root / "agent.sh").chmod(0o755)
    return root


def test_an_agent_that_opens_dev_stdin_reads_its_prompt(
    pytester: pytest.Pytester, make_project: MakeProject, engine_loop: str
) -> None:
    """The prompt went to a socket (uvloop's stdin=PIPE), which /dev/stdin cannot open:
    `cat: /dev/stdin: No such device or address`, and "expected 'hello', got ''"."""
    agent = """
        #!/bin/bash
        prompt=$(cat /dev/stdin)
        echo "$prompt"
    """
    stdin_project(make_project, agent, "hello", "hello")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1)


def test_a_prompt_bigger_than_a_pipe_holds_reaches_the_agent_whole(
    pytester: pytest.Pytester, make_project: MakeProject, engine_loop: str
) -> None:
    size = 3 * 2**20  # some MB, where a pipe holds 64 KiB
    agent = """
        #!/bin/bash
        prompt=$(cat /dev/stdin)
        echo "${#prompt} ${prompt: -7}"
    """
    stdin_project(make_project, agent, "x" * (size - 7) + "THE-END", f"{size} THE-END")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1)


def test_an_agent_that_never_reads_its_big_prompt_times_out_and_is_ended(
    pytester: pytest.Pytester, make_project: MakeProject, engine_loop: str
) -> None:
    """Writing a prompt the agent never reads, more than its pipe holds, neither blocks the
    run nor outlasts the model's timeout: the agent's group is killed after 1 s."""
    agent = """
        #!/bin/bash
        echo $$ > "$ARENA_PROJECT_ROOT/pid"
        sleep 30
        echo late
    """
    root = stdin_project(make_project, agent, "x" * 2**21, "late")
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    assert time.monotonic() - started < 20  # not the agent's 30 s
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*call failed: no answer within 1 s (the model's timeout)*"])
    pid = int((root / "pid").read_text())
    deadline = time.monotonic() + 5
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid)


def test_a_script_given_stdin_reads_it_from_a_pipe(tmp_path: Path) -> None:
    size = 3 * 2**20
    done = processes.run(
        ["bash", "-c", 'data=$(cat /dev/stdin); echo "${#data}"'],
        cwd=tmp_path,
        env=os.environ,
        timeout=30,
        stdin=b"x" * size,
    )
    assert (done.returncode, done.stdout.strip()) == (0, str(size).encode())


def test_a_script_that_never_reads_its_big_stdin_still_times_out(tmp_path: Path) -> None:
    """`run` wrote all of stdin before it waited with the timeout: a program that never
    read more than its pipe holds held it for ever."""

    class Hung(Exception):
        pass

    def hung(signum: int, frame: object) -> None:
        raise Hung

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, 20.0)  # ends the test, not the suite, if it hangs
    try:
        started = time.monotonic()
        with pytest.raises(processes.TimedOut, match="timed out after 1 s"):
            processes.run(
                ["sleep", "30"], cwd=tmp_path, env=os.environ, timeout=1, stdin=b"x" * 2**21
            )
        assert time.monotonic() - started < 10
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# 40 MiB on stdout, then a minute of nothing: only its timeout would end it
SPEWS = "import sys, time\nfor _ in range(40):\n    sys.stdout.buffer.write(b'y' * 2**20)\n"
SPEWS += "sys.stdout.flush()\ntime.sleep(60)\n"
# 1,200,000 lines of debug output on stderr (20 MB), then the reason
NOISY = "import sys\nsys.stderr.write(''.join(f'debug line {i}\\n' for i in range(1_200_000)))\n"
NOISY += "print('FATAL: the real reason', file=sys.stderr, flush=True)\n"


def test_a_program_that_writes_more_than_arena_reads_is_stopped_then(tmp_path: Path) -> None:
    """`while True: write 1 MiB` wrote 2 GB of /tmp in 3.5 s of a 4 s timeout (into files
    already unlinked), of which 16 MiB were read back."""
    started = time.monotonic()
    done = processes.run([sys.executable, "-c", SPEWS], cwd=tmp_path, env=os.environ, timeout=30)
    assert (done.stopped, done.stdout_cut, done.returncode) == ("stdout", True, -signal.SIGKILL)
    assert done.how() == (
        "was stopped once it had written more than 16 MiB to stdout, more than arena reads"
    )

    async def go() -> processes.Finished:
        return await processes.arun([sys.executable, "-c", SPEWS], cwd=tmp_path, env=os.environ)

    done = asyncio.run(asyncio.wait_for(go(), 30))
    assert (done.stopped, done.stdout_cut) == ("stdout", True)
    assert time.monotonic() - started < 20  # not the minute each would have taken


def test_what_is_kept_of_stderr_is_its_end(tmp_path: Path) -> None:
    """The first 16 MiB of stderr were kept, and the failure quoted their end: a debug line
    from the middle, never the reason the program gave last (after 20 MB of them)."""
    argv = [sys.executable, "-c", NOISY + "raise SystemExit(1)\n"]
    done = processes.run(argv, cwd=tmp_path, env=os.environ, timeout=60)
    assert done.returncode == 1
    assert done.stderr.endswith(b"debug line 1199999\nFATAL: the real reason\n")
    assert len(done.stderr) == processes.STDERR_KEPT
    done = asyncio.run(processes.arun(argv, cwd=tmp_path, env=os.environ))
    assert done.stderr.endswith(b"debug line 1199999\nFATAL: the real reason\n")
    argv = [sys.executable, "-c", NOISY + "import time\ntime.sleep(60)\n"]
    with pytest.raises(processes.TimedOut) as caught:
        processes.run(argv, cwd=tmp_path, env=os.environ, timeout=4)
    assert caught.value.stderr.endswith(b"FATAL: the real reason\n")


CANCELLED_RUN = """
import sys
import pytest

sys.exit(pytest.main(["-p", "no:cacheprovider", "-q"]))
"""


def test_a_command_agent_does_not_outlive_pytest_killed_by_sigterm(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    """A CI job cancelled sends SIGTERM to pytest's process group, which ends pytest at once;
    an agent runs in a group of its own, which the signal missed: it ran on, orphaned."""
    pids = tmp_path / "pids"
    pids.mkdir()
    make_project("p", *slow_agent(pids))
    run = subprocess.Popen(
        [sys.executable, "-c", CANCELLED_RUN],
        cwd=pytester.path,
        start_new_session=True,  # a process group of its own, as a CI job's
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(pids.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive(pids), "the agent never started"
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(10)
        assert wait_gone(pids) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        for pid in alive(pids):  # not left behind by a failing test
            os.kill(pid, signal.SIGKILL)
