"""`python -m v2c_desktop`: the app's main job.

Until the desktop window lands (GUI issue) this runs headless: it imports the bundled sample
transcript into the library and prints its outline, which exercises the whole core path
(parse, store, read back) on a fresh install.
"""

from __future__ import annotations

import sys

from v2c_desktop.cli.main import main as cli_main
from v2c_desktop.resources import sample_dir

SAMPLE_VIDEO = "youtube:spCOYV4KyPA"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    library = args[args.index("--library") + 1 :][:1] if "--library" in args else []
    prefix = ["--library", library[0]] if library else []
    status = cli_main([*prefix, "add", str(sample_dir())])
    if status != 0:
        return status
    return cli_main([*prefix, "outline", SAMPLE_VIDEO])


if __name__ == "__main__":
    sys.exit(main())
