"""Ask and chat: answers about the library's videos where every sentence cites a source.

The pure pieces live here (numbering sources, the prompt, the citation grammar, checking
and narrowing citations, the extractive fallback, request limits) so they can be tested
without a model; the orchestration (retrieval, the model call, streaming, saved chats)
builds on them.
"""
