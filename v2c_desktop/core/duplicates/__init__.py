"""Re-uploads and clips found by their words, the one detector briefs and `find_duplicates`
share (see `detect`)."""

from .detect import (
    DUPLICATE_CONTAINMENT,
    REUPLOAD_SHARE,
    SHINGLE,
    Fingerprint,
    cluster,
    contained,
    containment,
    find_duplicates,
    fingerprint,
    shingles,
)

__all__ = [
    "DUPLICATE_CONTAINMENT",
    "REUPLOAD_SHARE",
    "SHINGLE",
    "Fingerprint",
    "cluster",
    "contained",
    "containment",
    "find_duplicates",
    "fingerprint",
    "shingles",
]
