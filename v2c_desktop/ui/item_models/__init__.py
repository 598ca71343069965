"""Qt item models over core values (videos, collections)."""
