"""_calls."""
