"""Every pod command, the demo, the workspace tools; imports any room (pod.durable lazily)."""
