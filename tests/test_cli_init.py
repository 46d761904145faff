"""`arena init`: the projects it writes run together, and its name rule says what it takes."""

from __future__ import annotations

import pytest

from tests.conftest import ARENA


def test_two_projects_of_one_name_made_by_init_run_together(pytester: pytest.Pytester) -> None:
    """`arena init projects/faq && arena init teamB/faq && pytest projects teamB` stopped at
    collection ("import file mismatch"): both test files were test_faq_keywords.py."""
    for folder in ("projects/faq", "teamB/faq", "projects/faq-x", "projects/faq_x"):
        assert pytester.run(*ARENA, "init", folder).ret == 0
    second = pytester.path / "teamB/faq/tests/test_faq_keywords_2.py"
    assert second.is_file()
    assert (pytester.path / "projects/faq_x/tests/test_faq_x_keywords_2.py").is_file()
    run = pytester.runpytest_subprocess("projects", "-q", "-p", "no:cacheprovider")
    run.assert_outcomes(passed=15)  # three projects: two cases and three scorer tests each
    both = pytester.runpytest_subprocess(
        "projects/faq/tests", "teamB/faq/tests", "-q", "-p", "no:cacheprovider"
    )
    both.assert_outcomes(passed=6)
    assert "import file mismatch" not in both.stdout.str()
