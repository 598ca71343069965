"""v2c desktop: a local-first library of video transcripts that people and agents can cite."""

__version__ = "0.1.0"
