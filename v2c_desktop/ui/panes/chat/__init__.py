"""The chat pane: saved chats, scope, model, and cited answers that play their sources."""
