"""A saved chat as Markdown: questions, answers, and every citation as a timestamp link."""

from __future__ import annotations

from ..domain.chats import ChatRecord
from ..timecode import clock


def chat_markdown(chat: ChatRecord) -> str:
    lines = [f"# {chat.title}", "", f"_Saved chat {chat.id}, {chat.created_at}_", ""]
    for message in chat.messages:
        if message.role == "user":
            lines += [f"## {message.text.strip()}", ""]
            continue
        if message.extractive:
            lines += ["_(extractive answer: quoted passages, no model generated this)_", ""]
        lines += [message.text.strip(), ""]
        for c in message.citations:
            quote = str(c.get("quote", "")).replace("\n", " ")
            lines.append(
                f"- [{c['n']}] [{c['title']} @ {clock(float(c['start']))}]({c['url']})"
                + (f": “{quote}”" if quote else "")
            )
        if message.citations:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
