"""The DuckDB library: one file, one owning process, every read and write behind `LibraryStore`."""

from .database import LibraryStore, open_library

__all__ = ["LibraryStore", "open_library"]
