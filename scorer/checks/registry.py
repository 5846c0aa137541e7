"""Every check, in the order the scorer runs them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import AddedText, Inspection, Violation
from .content import check_added_tokens, check_secrets
from .hidden import check_inspection
from .job import Job
from .names import check_path_secrets
from .paths import (
    check_empty,
    check_file_count,
    check_kinds,
    check_manifest_unchanged,
    check_paths,
    check_sizes,
)

Check = Callable[[Inspection, Job], Sequence[Violation]]
ContentCheck = Callable[[AddedText, Job], Sequence[Violation]]

CHECKS: tuple[Check, ...] = (
    check_empty,
    check_inspection,
    check_manifest_unchanged,
    check_paths,
    check_file_count,
    check_sizes,
    check_kinds,
    check_path_secrets,
)

# Checks of added lines alone: the scorer runs them on each batch of lines as git streams
# the diff, so their regex scans overlap git's work. Together with CHECKS they are every check.
CONTENT_CHECKS: tuple[ContentCheck, ...] = (check_added_tokens, check_secrets)
