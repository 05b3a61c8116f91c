"""The Pod, settings, snapshots, summariser, trace, interceptors; imports policy, command, hooks."""
