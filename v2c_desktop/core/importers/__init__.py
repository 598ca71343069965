"""Where videos come from: web pages through yt-dlp, local files and subtitle files."""
