"""Key moments of one video: chosen by the model chain and checked against the transcript,
or, without a capable model, chosen from the video's chapters or its topic shifts (labelled
extractive). `MomentService` (`service.py`) is what `CoreAPI.get_key_moments` calls."""
