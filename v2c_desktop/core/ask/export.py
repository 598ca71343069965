"""A saved chat as Markdown: questions, answers, and every verified citation as a timestamp
link (an unsupported one is listed with its reason, as text)."""

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
            where = f"{c['title']} @ {clock(float(c['start']))}"
            if c.get("verified", True):
                cited = f"[{where}]({c['url']})"
            else:  # unsupported: listed with why, never a link
                cited = f"{where} (unsupported: {c.get('reason') or 'not verified'})"
            lines.append(f"- [{c['n']}] {cited}" + (f": “{quote}”" if quote else ""))
        if message.citations:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
