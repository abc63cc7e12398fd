"""The web viewer: the animated ceremony as one self-contained, offline HTML page."""
from .page import build_page, write_page

__all__ = ["build_page", "write_page"]
