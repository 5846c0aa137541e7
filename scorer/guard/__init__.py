"""`score-diff guard`: the job manifest enforced at the agent's tool call, before the write lands.

Data flows one way, as in the diff gate: a hook payload is normalised into a `ToolCall`
(payload.py, patch.py, shell/), its write targets are resolved against the repository
(paths.py), one decision is taken with the diff gate's own matchers and content checks
(decide.py, turns.py, transcript.py), and the answer is rendered in the agent's own format
(answer.py). Nothing here prints; the commands in scorer.commands do.
"""
