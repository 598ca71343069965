"""Named, append-only schema migrations, each recorded in `schema_migrations`.

A library file outlives the program version that made it, so the schema only ever grows by
new named steps: never edit or reorder a step that has shipped, add one at the end. Each step
runs in one transaction with its record, so a crash mid-upgrade leaves the old schema.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class Migration:
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_videos_transcripts",
        (
            """CREATE TABLE videos (
                id VARCHAR PRIMARY KEY,
                platform VARCHAR NOT NULL,
                native_id VARCHAR NOT NULL,
                title VARCHAR NOT NULL,
                channel VARCHAR NOT NULL DEFAULT '',
                channel_id VARCHAR NOT NULL DEFAULT '',
                url VARCHAR NOT NULL DEFAULT '',
                duration DOUBLE,
                published DATE,
                description VARCHAR NOT NULL DEFAULT '',
                thumbnail_url VARCHAR NOT NULL DEFAULT '',
                source_path VARCHAR NOT NULL DEFAULT '',
                added_at TIMESTAMP NOT NULL,
                updated_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE transcripts (
                video_id VARCHAR PRIMARY KEY,
                origin VARCHAR NOT NULL,
                language VARCHAR NOT NULL DEFAULT '',
                producer VARCHAR NOT NULL DEFAULT '',
                track_name VARCHAR NOT NULL DEFAULT '',
                translated_from VARCHAR,
                content_hash VARCHAR NOT NULL,
                segment_count INTEGER NOT NULL
            )""",
            """CREATE TABLE segments (
                video_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                start DOUBLE NOT NULL,
                "end" DOUBLE NOT NULL,
                text VARCHAR NOT NULL
            )""",
            """CREATE TABLE chapters (
                video_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                title VARCHAR NOT NULL,
                start DOUBLE NOT NULL,
                "end" DOUBLE NOT NULL
            )""",
        ),
    ),
    Migration(
        "0002_collections",
        (
            """CREATE TABLE collections (
                id VARCHAR PRIMARY KEY,
                name VARCHAR NOT NULL,
                description VARCHAR NOT NULL DEFAULT '',
                sources VARCHAR[] NOT NULL DEFAULT [],
                created_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE collection_videos (
                collection_id VARCHAR NOT NULL,
                video_id VARCHAR NOT NULL,
                position INTEGER NOT NULL,
                added_at TIMESTAMP NOT NULL
            )""",
        ),
    ),
    Migration(
        "0003_search_index",
        (
            "CREATE SEQUENCE chunk_ids START 1",
            """CREATE TABLE chunks (
                id BIGINT NOT NULL,
                video_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                start DOUBLE NOT NULL,
                "end" DOUBLE NOT NULL,
                first_seg INTEGER NOT NULL,
                last_seg INTEGER NOT NULL,
                chapter INTEGER,
                length INTEGER NOT NULL,
                text VARCHAR NOT NULL
            )""",
            """CREATE TABLE postings (
                term VARCHAR NOT NULL,
                chunk_id BIGINT NOT NULL,
                tf INTEGER NOT NULL
            )""",
            """CREATE TABLE vectors (
                chunk_id BIGINT NOT NULL,
                model VARCHAR NOT NULL,
                dims INTEGER NOT NULL,
                vec BLOB NOT NULL
            )""",
            """CREATE TABLE index_manifest (
                video_id VARCHAR PRIMARY KEY,
                transcript_hash VARCHAR NOT NULL,
                chunk_count INTEGER NOT NULL,
                embed_model VARCHAR,
                vectors_hash VARCHAR,
                indexed_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE index_state (
                key VARCHAR PRIMARY KEY,
                value BIGINT NOT NULL
            )""",
        ),
    ),
    Migration(
        "0004_chats",
        (
            """CREATE TABLE chats (
                id VARCHAR PRIMARY KEY,
                title VARCHAR NOT NULL,
                scope VARCHAR NOT NULL,
                created_at TIMESTAMP NOT NULL,
                updated_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE chat_messages (
                chat_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                role VARCHAR NOT NULL,
                text VARCHAR NOT NULL,
                citations VARCHAR NOT NULL DEFAULT '[]',
                unverified VARCHAR NOT NULL DEFAULT '[]',
                model VARCHAR,
                extractive BOOLEAN NOT NULL DEFAULT false,
                created_at TIMESTAMP NOT NULL
            )""",
        ),
    ),
    Migration(
        # BM25 needs each matching chunk's length: kept beside its postings, a keyword
        # search reads the postings of its terms alone instead of joining every chunk.
        "0005_postings_length",
        (
            "ALTER TABLE postings ADD COLUMN length INTEGER",
            "UPDATE postings SET length = c.length FROM chunks c WHERE c.id = postings.chunk_id",
            "DELETE FROM postings WHERE length IS NULL",  # orphans of a deleted chunk
            """CREATE TABLE postings_sorted AS
                SELECT term, chunk_id, tf, length FROM postings ORDER BY term, chunk_id""",
            "DROP TABLE postings",
            "ALTER TABLE postings_sorted RENAME TO postings",
            "DELETE FROM index_state WHERE key = 'unsorted_postings'",
        ),
    ),
    Migration(
        # A title the user gave a video: kept when the video is imported again (the source's
        # own title stays in `title` until then, and wins again if the user clears theirs).
        "0006_user_titles",
        ("ALTER TABLE videos ADD COLUMN user_title VARCHAR",),
    ),
    Migration(
        # Saved briefs (the whole result as JSON, as it was shown) and the per-chunk claims
        # of their map step, cached by transcript, model and prompt version so a re-run after
        # adding one video maps only that video.
        "0007_briefs",
        (
            """CREATE TABLE briefs (
                id VARCHAR PRIMARY KEY,
                title VARCHAR NOT NULL,
                question VARCHAR NOT NULL,
                template VARCHAR NOT NULL,
                scope VARCHAR NOT NULL DEFAULT '{}',
                model VARCHAR,
                status VARCHAR NOT NULL,
                result VARCHAR NOT NULL,
                created_at TIMESTAMP NOT NULL,
                updated_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE brief_maps (
                video_id VARCHAR NOT NULL,
                transcript_key VARCHAR NOT NULL,
                model VARCHAR NOT NULL,
                prompt_version VARCHAR NOT NULL,
                chunk_budget INTEGER NOT NULL,
                chunk INTEGER NOT NULL,
                claims VARCHAR NOT NULL,
                created_at TIMESTAMP NOT NULL,
                PRIMARY KEY (video_id, transcript_key, model, prompt_version, chunk_budget, chunk)
            )""",
        ),
    ),
    Migration(
        # A video's key moments as a model chose them (the verified result as JSON), cached
        # by transcript, model, prompt version and count; a video's rows of another
        # transcript are deleted when it is saved again.
        "0008_key_moments",
        (
            """CREATE TABLE key_moments (
                video_id VARCHAR NOT NULL,
                transcript_hash VARCHAR NOT NULL,
                model VARCHAR NOT NULL,
                prompt_version VARCHAR NOT NULL,
                count INTEGER NOT NULL,
                result VARCHAR NOT NULL,
                created_at TIMESTAMP NOT NULL,
                PRIMARY KEY (video_id, transcript_hash, model, prompt_version, count)
            )""",
        ),
    ),
    Migration(
        # SponsorBlock's skip segments of a video, as last fetched: one row per fetch (so a
        # video SponsorBlock knows no segments of is not asked again) and its segments.
        "0009_skip_segments",
        (
            """CREATE TABLE skip_fetches (
                video_id VARCHAR PRIMARY KEY,
                youtube_id VARCHAR NOT NULL,
                categories VARCHAR[] NOT NULL,
                fetched_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE skip_segments (
                video_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                category VARCHAR NOT NULL,
                start DOUBLE NOT NULL,
                "end" DOUBLE NOT NULL,
                uuid VARCHAR NOT NULL,
                votes INTEGER NOT NULL,
                locked BOOLEAN NOT NULL,
                action_type VARCHAR NOT NULL,
                description VARCHAR NOT NULL DEFAULT '',
                video_duration DOUBLE
            )""",
        ),
    ),
    Migration(
        # Which caption track a web video's transcript was read from (`creator:en`,
        # `auto:en>de`) and how many tracks its site offered, so the faces can show the
        # track and offer the others; '' and NULL for what was imported before.
        "0010_transcript_tracks",
        (
            "ALTER TABLE transcripts ADD COLUMN track VARCHAR DEFAULT ''",
            "ALTER TABLE transcripts ADD COLUMN track_count INTEGER",
        ),
    ),
    Migration(
        # Collections that follow their sources: the playlists, channels and feeds a
        # collection was filled from (checked again on a refresh, which imports the new
        # uploads only), its schedule and the last check; and what a check found at a
        # source but could not import (no captions, a private video), with the reason.
        "0011_collection_follow",
        (
            """CREATE TABLE collection_follow (
                collection_id VARCHAR PRIMARY KEY,
                sources VARCHAR[] NOT NULL DEFAULT [],
                every_hours DOUBLE,
                last_check TIMESTAMP,
                next_check TIMESTAMP,
                last_new INTEGER NOT NULL DEFAULT 0
            )""",
            """CREATE TABLE collection_pending (
                collection_id VARCHAR NOT NULL,
                input VARCHAR NOT NULL,
                reason VARCHAR NOT NULL,
                seen_at TIMESTAMP NOT NULL,
                PRIMARY KEY (collection_id, input)
            )""",
        ),
    ),
    Migration(
        # The Notion page made for each video under each parent page, with the transcript
        # it showed, so exporting again reuses a page that is still there.
        "0012_notion_pages",
        (
            """CREATE TABLE notion_pages (
                video_id VARCHAR NOT NULL,
                parent_id VARCHAR NOT NULL,
                page_id VARCHAR NOT NULL,
                url VARCHAR NOT NULL,
                transcript_hash VARCHAR NOT NULL,
                exported_at TIMESTAMP NOT NULL,
                PRIMARY KEY (video_id, parent_id)
            )""",
        ),
    ),
    Migration(
        # A brief's map step picks the claims that bear on its question, so its cache is
        # keyed by the question too. The old rows were picked for a question they do not
        # record: they are dropped (a cache, rebuilt on the next brief), not guessed at.
        "0013_brief_maps_by_question",
        (
            "DROP TABLE brief_maps",
            """CREATE TABLE brief_maps (
                video_id VARCHAR NOT NULL,
                transcript_key VARCHAR NOT NULL,
                question_key VARCHAR NOT NULL,
                model VARCHAR NOT NULL,
                prompt_version VARCHAR NOT NULL,
                chunk_budget INTEGER NOT NULL,
                chunk INTEGER NOT NULL,
                claims VARCHAR NOT NULL,
                created_at TIMESTAMP NOT NULL,
                PRIMARY KEY (video_id, transcript_key, question_key, model, prompt_version,
                    chunk_budget, chunk)
            )""",
        ),
    ),
    Migration(
        # A video's comments as last read from its site: one row per read (how many were
        # asked for, whether that was all, the title and page to show offline) and the
        # comments in the order shown. Keyed by video id without a `videos` row, since a
        # video without captions is not in the library but its comments are kept.
        "0014_video_comments",
        (
            """CREATE TABLE comment_fetches (
                video_id VARCHAR PRIMARY KEY,
                title VARCHAR NOT NULL DEFAULT '',
                url VARCHAR NOT NULL DEFAULT '',
                asked INTEGER NOT NULL,
                complete BOOLEAN NOT NULL,
                disabled BOOLEAN NOT NULL DEFAULT false,
                fetched_at TIMESTAMP NOT NULL
            )""",
            """CREATE TABLE video_comments (
                video_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                comment_id VARCHAR NOT NULL,
                parent_id VARCHAR,
                author VARCHAR NOT NULL,
                author_id VARCHAR NOT NULL DEFAULT '',
                text VARCHAR NOT NULL,
                published DATE,
                likes BIGINT,
                by_uploader BOOLEAN NOT NULL DEFAULT false,
                pinned BOOLEAN NOT NULL DEFAULT false,
                favorited BOOLEAN NOT NULL DEFAULT false,
                verified BOOLEAN NOT NULL DEFAULT false
            )""",
        ),
    ),
)


def applied_migrations(conn: duckdb.DuckDBPyConnection) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL)"
    )
    return [
        row[0]
        for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
    ]


def migrate(conn: duckdb.DuckDBPyConnection, upto: str | None = None) -> list[str]:
    """Apply every migration not yet recorded (up to and including `upto`); return their names."""
    done = set(applied_migrations(conn))
    ran: list[str] = []
    for migration in MIGRATIONS:
        if migration.name not in done:
            conn.execute("BEGIN TRANSACTION")
            try:
                for statement in migration.statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, current_localtimestamp())",
                    [migration.name],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            ran.append(migration.name)
        if migration.name == upto:
            break
    return ran
