"""fallback."""

from ._companion import install_fallback

__all__ = ["install_fallback"]
