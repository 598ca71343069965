"""The brief pane: build a cited brief from a collection, watch it, read it, export it."""
