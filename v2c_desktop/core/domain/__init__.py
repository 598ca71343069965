"""The domain types every face shows: videos, imports, chats, models, changes."""
