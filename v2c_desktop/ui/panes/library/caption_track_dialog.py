""" "Caption track…": choose which of a web video's caption tracks its transcript is read from.

The dialog lists the tracks the site offers (the creator's captions before speech
recognition, each with its language), marks the one the transcript comes from now, and
offers a machine translation for a track the site can translate. The choice is imported on
a worker with its progress under Imports; the current transcript is replaced only once the
new one is read, so a failure leaves it as it was. A transcript of the user's own (their
subtitle file, speech-to-text) is replaced only after the dialog has said so. Opened with
`open()`, never `exec()`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.captions import (
    KIND_WORDS,
    CaptionChoice,
    CaptionTrack,
    CaptionTracks,
)

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
NO_TRANSLATION = "No translation"
CURRENT_MARK = " · now"


def track_line(track: CaptionTrack, current: bool) -> str:
    """A track as the list shows it: "German · creator captions (de) · now"."""
    line = f"{track.name} · {KIND_WORDS[track.kind]} ({track.language})"
    return line + CURRENT_MARK if current else line


class CaptionTrackDialog(QDialog):
    """Asks which caption track of `listing`'s video to read its transcript from.

    Signals:
        track_chosen(choice): Use track was pressed (a `CaptionChoice`).
    """

    track_chosen = Signal(object)

    def __init__(self, listing: CaptionTracks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.listing = listing
        self.setWindowTitle("Caption track…")
        self.setObjectName("captionTrackDialog")
        intro = QLabel(f"Read the transcript of “{listing.title}” from another caption track.")
        intro.setObjectName("captionTrackIntro")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        current = listing.current.key if listing.current else ""
        base = listing.current.key.split(">")[0] if listing.current else ""
        self.tracks = QComboBox()
        self.tracks.setObjectName("captionTracks")
        for track in listing.tracks:
            self.tracks.addItem(track_line(track, track.key == current))
            index = self.tracks.count() - 1
            self.tracks.setItemData(index, track.key, KEY_ROLE)
            tip = "The site can machine-translate it" if track.translatable else ""
            self.tracks.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        keys = [t.key for t in listing.tracks]
        if base in keys:
            self.tracks.setCurrentIndex(keys.index(base))
        self.translation = QComboBox()
        self.translation.setObjectName("captionTranslation")
        self.translation.addItem(NO_TRANSLATION)
        self.translation.setItemData(0, "", KEY_ROLE)
        for target in listing.translations:
            self.translation.addItem(f"{target.name} ({target.language})")
            self.translation.setItemData(self.translation.count() - 1, target.language, KEY_ROLE)
        if listing.current and listing.current.translate_to:
            found = self.translation.findData(listing.current.translate_to, KEY_ROLE)
            self.translation.setCurrentIndex(max(found, 0))
        self.now = QLabel(listing.current_words or "none")
        self.now.setObjectName("captionTrackNow")
        self.now.setTextFormat(Qt.TextFormat.PlainText)
        self.now.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Transcript now:", self.now)
        form.addRow("Caption track:", self.tracks)
        form.addRow("Translate into:", self.translation)
        self.note = QLabel()
        self.note.setObjectName("captionTrackNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        after = QLabel(
            "The track's transcript replaces the current one once it is downloaded and read; "
            "if that fails, the current one stays. Its progress shows under Imports."
        )
        after.setObjectName("captionTrackAfter")
        after.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.use_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.use_button.setText("Use track")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(after)
        layout.addWidget(self.buttons)
        self.tracks.currentIndexChanged.connect(lambda _i: self._follow())
        self.translation.currentIndexChanged.connect(lambda _i: self._follow())
        self._follow()
        self.setMinimumWidth(480)

    def _track(self) -> CaptionTrack | None:
        index = self.tracks.currentIndex()
        return self.listing.tracks[index] if 0 <= index < len(self.listing.tracks) else None

    def chosen(self) -> CaptionChoice | None:
        """The track and translation picked, or None when there is nothing to pick."""
        track = self._track()
        if track is None:
            return None
        target = str(self.translation.currentData(KEY_ROLE) or "") if track.translatable else ""
        return CaptionChoice(track.language, track.kind, target or None)

    def _follow(self) -> None:
        """Translation only for a translatable track; say what Use track will do."""
        track = self._track()
        translatable = track is not None and track.translatable and self.translation.count() > 1
        self.translation.setEnabled(translatable)
        choice = self.chosen()
        same = choice is not None and self.listing.current == choice
        self.use_button.setEnabled(choice is not None and not same)
        notes = []
        if not self.listing.tracks:
            notes.append("This video has no caption tracks on its site.")
        elif same:
            notes.append("The transcript already comes from this track.")
        if self.listing.users_own:
            notes.append(
                "The transcript now is your own (from your files or transcribed on this "
                "computer): the track you choose replaces it."
            )
        self.note.setText(" ".join(notes))
        self.note.setVisible(bool(notes))

    def _accept(self) -> None:
        choice = self.chosen()
        if choice is not None:
            self.track_chosen.emit(choice)
            self.accept()
