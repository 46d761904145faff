"""Reading the JUnit XML of an inner run: its testcases and the record each carries."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from pytest_arena.reports.junit import OUTPUT_HEADER

SCHEMA = Path(__file__).with_name("junit-10.xsd")  # from pytest's repository: see its header


def cases(path: str | Path) -> dict[str, ET.Element]:
    return {tc.attrib["name"]: tc for tc in ET.parse(path).getroot().iter("testcase")}


def props(case: ET.Element) -> dict[str, str]:
    return {p.attrib["name"]: p.attrib["value"] for p in case.iter("property")}


def output(case: ET.Element) -> dict[str, str]:
    """The record in a testcase's `<system-out>` (xunit2), as `props` gives it for xunit1."""
    outs = case.findall("system-out")
    if not outs:
        return {}
    assert len(outs) == 1  # GitLab's parser fails on a failed case with two
    text = outs[0].text or ""
    assert OUTPUT_HEADER in text
    lines = text.split(OUTPUT_HEADER + "\n", 1)[1].split("\n")
    ours = itertools.takewhile(lambda line: line and not line.startswith("---"), lines)
    return dict(line.split(": ", 1) for line in ours)


def record_of(case: ET.Element, family: str) -> dict[str, str]:
    """The record a testcase carries: properties in xunit1, `<system-out>` in xunit2."""
    if family == "xunit1":
        assert case.find("system-out") is None
        return props(case)
    assert case.find("properties") is None
    return output(case)


def assert_valid(path: Path) -> None:
    xmlschema.XMLSchema(SCHEMA).validate(path)
