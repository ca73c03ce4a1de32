"""_forms."""
