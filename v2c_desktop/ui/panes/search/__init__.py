"""The search pane: the query box, filters and result cards that play their moment."""
