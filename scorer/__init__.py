"""score-diff: decide from git alone whether a coding agent stayed inside its job."""

__version__ = "0.1.0"
