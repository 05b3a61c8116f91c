"""Permission rules and the policy file ([[rule]], [[hook]]); imports pod.command, pod.hooks."""
