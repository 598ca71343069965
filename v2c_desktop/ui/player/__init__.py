"""The player dock and its backends: YouTube in QtWebEngine, local media in QtMultimedia."""
