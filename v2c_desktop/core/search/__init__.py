"""Hybrid transcript search: chunking, keyword and vector indexes, query parsing, fusion."""
