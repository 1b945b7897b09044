"""Forward-mode automatic differentiation (built on `tagging`)."""
