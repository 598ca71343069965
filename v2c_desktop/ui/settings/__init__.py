"""The settings dialog and its sections, and the first-run chat model set-up."""
