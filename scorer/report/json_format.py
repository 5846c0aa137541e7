"""The JSON report (schemas/report.schema.json)."""

from __future__ import annotations

import json

from ..model import Result
from .escape import json_safe
from .facts import to_dict


def render(result: Result) -> str:
    return json_safe(json.dumps(to_dict(result), indent=2, ensure_ascii=False)) + "\n"
