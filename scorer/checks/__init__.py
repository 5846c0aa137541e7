"""Checks: plain functions from the inspected change and the job to violations.

A check never prints and never raises for a finding; it returns Violations. The table
of every check is `scorer.checks.registry`.
"""
