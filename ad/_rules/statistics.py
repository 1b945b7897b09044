"""Rules for `statistics` (filled in below)."""
