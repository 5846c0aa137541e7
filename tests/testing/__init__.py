"""Helpers shared by test modules: no test module imports another, and conftest.py only turns these into fixtures."""
