"""A labelled corpus of jobs on a small requests-like package: cheats and legitimate changes.

Each case is one job an agent might hand back on `minireq` (a utility module and a
structures module, each with protected tests): the base holds one bug (the task), and the
case is the agent's change. Every case is scored by the full pipeline, required test
included, and labelled with its category and the verdict it must get. `python -m
tests.cheat_corpus` prints caught/total and passed/total per category;
tests/test_cheat_corpus.py asserts each verdict.
"""
