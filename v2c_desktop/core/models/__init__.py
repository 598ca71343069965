"""Local and remote models behind one async interface: chat, JSON completion, embeddings.

Runtimes (llama.cpp, ONNX, OpenAI-compatible servers) implement the protocols in `types`;
`chain` picks which model serves a request and records every attempt.
"""
