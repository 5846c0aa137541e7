"""The subcommands, one module each. Every module has `add_arguments(parser)` and
`run(args, ctx) -> int`; `scorer.main` lists them in one table.

Nothing below this package imports it: the pipeline, checks and renderers never see argv.
What a subcommand may touch of the world, `Context`, is `scorer.context`, below both.
"""
