"""pytest_config.loads_implicitly as it was before issue 29 ruled most paths out with four searches
(lead at 14a1b4e): the reference a differential test holds the new one to. Test code only, never on a
verdict's path."""

from __future__ import annotations

from scorer.pytest_config import _METADATA_DIRS, _MODULE_SUFFIXES, _SITE_MODULES


def loads_implicitly(path: str) -> bool:
    parts = path.lower().split("/")
    if parts[-1].endswith(".pth") or _is_site(parts):
        return True
    return any(p.split(".")[0] in _SITE_MODULES or p.endswith(_METADATA_DIRS) for p in parts)


def _is_site(parts: list[str]) -> bool:
    name = parts[-1]
    if name.split(".")[0] == "__init__" and len(parts) > 1:
        parent = parts[-2]
        return parent == "site" and name.endswith(_MODULE_SUFFIXES)
    return name.split(".")[0] == "site" and "." in name and name.endswith(_MODULE_SUFFIXES)
