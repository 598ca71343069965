"""Watching a live stream: a rolling transcript as it plays, saved to the library at the end.

yt-dlp says whether a stream is live and how it is offered (`plan.py`); its HLS playlist is
read as it grows (`hls.py`, each request through `http.py`); the words come from the
stream's own live captions (`captions.py`) or from speech-to-text on its audio, decoded as
it arrives (`audio.py`) and read a window at a time, cut in pauses (`speech.py`); `watch.py`
runs a watch and saves it. The events it streams are `domain/live.py`.

Importing this package is cheap: PyAV, numpy and the speech model load on first use.
"""
