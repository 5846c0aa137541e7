"""One-command set-up: a starter manifest read off the repository, and the hook configuration."""
