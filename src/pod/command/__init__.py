"""Out-of-process hooks: CommandHook, its processes, native and Claude Code; imports pod.hooks."""
