"""Contextual tagging: metadata that rides on values (built on `contexts`)."""
