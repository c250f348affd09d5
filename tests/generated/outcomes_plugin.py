"""A pytest plugin for the generated suites' runs: writes every test's outcome and message to the
JSON file named by OPGEN_OUTCOMES, so opgen's tests can assert on single tests.

Outcomes: passed, failed, skipped, xfailed, xpassed, error (setup or teardown failed). A strict
xfail that passes is a failure whose message starts with "[XPASS(strict)]".
"""

from __future__ import annotations

import json
import os

_outcomes: dict[str, dict[str, str]] = {}


def _message(report) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return report.longrepr[2]  # (path, line, "Skipped: <reason>")
    return report.longreprtext


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
            message = report.wasxfail + "\n" + (report.longreprtext or "")
        else:
            outcome = report.outcome
            message = "" if report.passed else _message(report)
        if report.when == "setup" and report.failed:
            outcome = "error"
        _outcomes[report.nodeid] = {
            "outcome": outcome,
            "message": message,
            "seconds": report.duration,
        }
    elif report.when == "teardown" and report.failed:
        _outcomes[report.nodeid] = {
            "outcome": "error",
            "message": report.longreprtext,
            "seconds": report.duration,
        }


def pytest_sessionfinish(session):
    path = os.environ.get("OPGEN_OUTCOMES")
    if path:
        with open(path, "w") as f:
            json.dump(_outcomes, f, indent=1)
