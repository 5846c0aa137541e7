"""Checks: plain functions from what was inspected to findings.

A check never prints and never raises for a finding: it takes a `contract.CheckInput` and returns
`contract.Findings`. The table of every check is `scorer.checks.registry`.
"""
