"""The models a user can have: the catalog, downloads, and the files installed here."""
