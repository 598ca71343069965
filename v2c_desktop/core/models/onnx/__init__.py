"""The ONNX runtime: the default embedder (all-MiniLM-L6-v2, int8) shipped with the app."""
