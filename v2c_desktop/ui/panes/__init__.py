"""The panes the main window composes: one module per pane, each with its own logic."""
