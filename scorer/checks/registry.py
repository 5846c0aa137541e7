"""Every check, in the order the scorer runs them (the order of the report's violations).

Each row is a `contract.Check`: it takes the one `CheckInput` and returns `Findings`. A new check
is a function of that shape in the module of its kind, and one row here; a check that needs only
the change and the job is wrapped by `of_change`. Two lists stand beside CHECKS:

- `CONTENT_CHECKS` (defined in `content.py`, the guard imports it from there): the checks of added
  lines alone, run on each batch of lines while git streams the diff; `check_streamed` is their
  place in this order.
- `check_test` (`required_test.py`): the check of the required test's outcome, run after the test,
  which runs only when the checks here found nothing (or always_run_test, or shadow mode).
- `AFTER_TEST`: checks of the one contract that need what only the test run knows (the tests that
  flipped, `CheckInput.flipped`); the pipeline runs them on the same input once the test ran.
"""

from __future__ import annotations

from .blast_radius import check_sensitive
from .cheats import check_source_cheats
from .content import CONTENT_CHECKS
from .contract import Check, of_change
from .hidden import check_inspection
from .literals import check_flipped_literals
from .names import check_messages, check_path_secrets
from .paths import (
    check_empty,
    check_file_count,
    check_kinds,
    check_manifest_unchanged,
    check_paths,
    check_sizes,
)
from .protected import check_config, check_protected
from .required_test import check_test
from .runner import check_runner_shadowed
from .runner_reach import check_runner_reach
from .source import check_new_source, check_streamed

CHECKS: tuple[Check, ...] = (
    of_change(check_empty),
    of_change(check_inspection),
    of_change(check_manifest_unchanged),
    of_change(check_paths),
    of_change(check_file_count),
    of_change(check_sizes),
    of_change(check_kinds),
    of_change(check_path_secrets),
    check_streamed,  # what CONTENT_CHECKS found while git streamed the added lines
    check_new_source,  # whole new files, Python as it decodes
    check_messages,  # secrets in commit messages
    check_protected,  # test-weakened
    check_config,  # test-config-changed
    check_runner_shadowed,  # runner-shadowed: the runner comes from the environment
    check_source_cheats,  # source written to fool the tests
    check_runner_reach,  # source that reaches for the runner's own state (its report, its exit)
    check_sensitive,  # sensitive paths and their Blast-Radius justifications
)

AFTER_TEST: tuple[Check, ...] = (check_flipped_literals,)  # flipped-test-special-cased

__all__ = ["AFTER_TEST", "CHECKS", "CONTENT_CHECKS", "check_test"]
