"""Feedback for the agent: what it reads before it starts and after each verdict.

`fence` turns the job into instructions (`score-diff fence`, the guard's session-start
context); `hints` says, under each violation, what to do next. Both read the checks'
tables and the manifest; neither decides a verdict.
"""
