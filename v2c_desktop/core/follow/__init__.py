"""Collections that follow their sources: a collection filled from a playlist, a channel or
a feed remembers it, and a refresh imports the new uploads only (`refresh.py`), when asked
or on the collection's schedule while the app runs (`due` collections)."""
