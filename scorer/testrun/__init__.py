"""Run the manifest's required test: argv, no shell, stdin closed, a timeout, a reduced environment.

The test runs code the job wrote. `run` starts one test command and reads its end, `process` makes
sure its deadline always ends the run, `environment` what it inherits, `session` one run as the gate
needs it; what a run proves is in docs/required-test.md. This package defines nothing: importing
it loads none of the envelope, observer or process code (import the module you need).
"""
