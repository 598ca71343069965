"""`v2c models list|add PATH|pull ID|remove ID|test [ID]`: the models answers will use.

Every action goes through the library's owner (`CoreAPI`): when the app runs, these are
the app's models, so a model pulled here is one its chat can use at once.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from ..context import open_context
from ..output import StderrProgress, emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "models", parents=[common], help="local models: list, add, pull, remove, test"
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = actions.add_parser("list", parents=[common], help="catalog, installed and detected models")
    a.add_argument("--detect", action="store_true", help="also look for Ollama / LM Studio")
    a.set_defaults(handler=run_list)
    a = actions.add_parser("add", parents=[common], help="use a local GGUF file")
    a.add_argument("path", type=Path)
    a.add_argument("--embed", action="store_true", help="it is an embedding model")
    a.set_defaults(handler=run_add)
    a = actions.add_parser("pull", parents=[common], help="download a catalog model")
    a.add_argument("id")
    a.set_defaults(handler=run_pull)
    a = actions.add_parser("remove", parents=[common], help="forget a model (delete downloads)")
    a.add_argument("id")
    a.set_defaults(handler=run_remove)
    a = actions.add_parser("test", parents=[common], help="load a model and measure it")
    a.add_argument("id", nargs="?", help="default: the first model of the chat chain")
    a.set_defaults(handler=run_test)


async def run_list(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        models = await api.list_models(detect=args.detect)
    if args.json:
        rows = [asdict(row) for row in models.models]
        emit_json({"models": rows, "chat_chain": models.chat_chain, "policy": models.policy})
        return 0
    for r in models.models:
        mark = "installed" if r.installed else "available"
        size = f"{r.size_bytes / 1e9:.2f} GB" if r.size_bytes else ""
        print(f"{r.id:50} {r.kind:5} {mark:9} {size:>8}  {r.note}")
        if not r.installed and r.install:
            print(f"{'':50} {r.install}")
    chain = ", ".join(models.chat_chain) or "none: answers will be extractive"
    print(f"chat chain ({models.policy} policy):", chain)
    return 0


async def run_add(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        model = await api.add_model(
            str(args.path.expanduser().resolve()), "embed" if args.embed else "chat"
        )
    if args.json:
        emit_json(asdict(model))
    else:
        print(f"added {model.id} ({model.path})")
    return 0


async def run_pull(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        model = await api.pull_model(args.id, progress=StderrProgress(delay=0.0))
    if args.json:
        emit_json(asdict(model))
    else:
        print(f"installed {model.id} at {model.path}")
    return 0


async def run_remove(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        await api.remove_model(args.id)
    if args.json:
        emit_json({"removed": args.id})
    else:
        print(f"removed {args.id}")
    return 0


async def run_test(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        result = await api.test_model(args.id)
    shown = {k: v for k, v in asdict(result).items() if v is not None and v != ""}
    if args.json:
        emit_json(shown)
    else:
        for key, value in shown.items():
            print(f"{key:22} {value}")
    return 0
