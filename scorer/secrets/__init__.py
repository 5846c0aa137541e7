"""Secrets: what a credential looks like and where it is masked.

`detector_table` lists the detectors with their sources, `secret_values` judges a match's
value, `detectors` scans added text, and `redaction` masks every free text of a Result and
the log. The checks (`checks.content`, `checks.names`) and the renderers use them; nothing
here imports a check.
"""
