"""`v2c models list|add PATH|pull ID|remove ID|test [ID]`: the models this machine can use."""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.models.types import ChatDelta, ChatDone, ChatMessage, ChatOptions
from v2c_desktop.core.settings import load_settings

from ..output import StderrProgress, emit_json

PROBE = [ChatMessage("user", "Name three primary colours in one short sentence.")]
EMBED_PROBE = [
    "Gradient descent adjusts the weights of a neural network step by step.",
    "Bitcoin miners compete to find a proof of work for the next block.",
] * 16


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


def _registry() -> ModelRegistry:
    return ModelRegistry(load_settings().models, ModelManager.default())


async def run_list(args: argparse.Namespace) -> int:
    registry = _registry()
    try:
        if args.detect:
            await registry.detect()
        rows: list[dict[str, Any]] = []
        for state in registry.manager.list():
            entry = state.entry
            rows.append(
                {
                    "id": state.id,
                    "kind": state.kind,
                    "runtime": state.runtime,
                    "installed": state.installed,
                    "label": state.label,
                    "size_bytes": entry.size_bytes if entry else None,
                    "licence": entry.licence if entry else None,
                    "recommended": bool(entry and entry.recommended),
                    "capable": entry.capable if entry else True,
                    "note": entry.note if entry else "",
                    "install": "" if state.installed else state.how_to_install,
                }
            )
        for model in registry.chat_models():
            if model.info.runtime == "openai-compat":
                rows.append(
                    {
                        "id": model.info.id,
                        "kind": "chat",
                        "runtime": "openai-compat",
                        "installed": True,
                        "label": model.info.label,
                        "capable": True,
                        "local": model.info.local,
                    }
                )
        chain = [m.info.id for m in registry.chain()]
    finally:
        await registry.aclose()
    if args.json:
        emit_json({"models": rows, "chat_chain": chain})
        return 0
    for r in rows:
        mark = "installed" if r["installed"] else "available"
        size = f"{r['size_bytes'] / 1e9:.2f} GB" if r.get("size_bytes") else ""
        print(f"{r['id']:50} {r['kind']:5} {mark:9} {size:>8}  {r.get('note') or ''}")
        if not r["installed"] and r.get("install"):
            print(f"{'':50} {r['install']}")
    print("chat chain (local-only policy):", ", ".join(chain) or "none: answers will be extractive")
    return 0


async def run_add(args: argparse.Namespace) -> int:
    model = ModelManager.default().add_local(args.path, kind="embed" if args.embed else "chat")
    if args.json:
        emit_json(model.to_dict())
    else:
        print(f"added {model.id} ({model.path})")
    return 0


async def run_pull(args: argparse.Namespace) -> int:
    manager = ModelManager.default()
    model = await manager.pull(args.id, progress=StderrProgress(delay=0.0))
    if args.json:
        emit_json(model.to_dict())
    else:
        print(f"installed {model.id} at {model.path}")
    return 0


async def run_remove(args: argparse.Namespace) -> int:
    ModelManager.default().remove(args.id)
    if args.json:
        emit_json({"removed": args.id})
    else:
        print(f"removed {args.id}")
    return 0


async def run_test(args: argparse.Namespace) -> int:
    registry = _registry()
    try:
        result = await _measure(registry, args.id)
    finally:
        await registry.aclose()
    if args.json:
        emit_json(result)
    else:
        for key, value in result.items():
            print(f"{key:22} {value}")
    return 0


async def _measure(registry: ModelRegistry, model_id: str | None) -> dict[str, Any]:
    chats = {m.info.id: m for m in registry.chat_models()}
    if model_id is None:
        chain = registry.chain()
        if not chain:
            raise V2CError(
                "not-found",
                "no chat model is installed",
                "pull one with `v2c models pull ID` (see `v2c models list`)",
            )
        model_id = chain[0].info.id
    if model_id in chats:
        model = chats[model_id]
        started = time.perf_counter()
        text, done = "", None
        async for event in model.chat(PROBE, ChatOptions(max_tokens=48, temperature=0.0, seed=1)):
            if isinstance(event, ChatDelta):
                text += event.text
            elif isinstance(event, ChatDone):
                done = event
        total = time.perf_counter() - started
        assert done is not None
        usage = done.usage
        first = (usage.first_token_ms or 0) / 1000
        load = getattr(model, "load_ms", 0) / 1000  # a first use includes loading the model
        gen_s = max(1e-6, usage.ms / 1000 - first)
        return {
            "model": model_id,
            "kind": "chat",
            "load_s": round(load, 3),
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "first_token_s": round(first, 3),
            "total_s": round(total, 3),
            "prompt_tokens_per_s": round(usage.prompt_tokens / max(first - load, 1e-6), 1),
            "generation_tokens_per_s": round(usage.completion_tokens / gen_s, 1),
            "answer": text.strip(),
        }
    try:
        embedder = registry.embedder(model_id)
    except V2CError:
        raise bad_request(f"no model {model_id!r} is installed", "see `v2c models list`") from None
    started = time.perf_counter()
    await embedder.embed(EMBED_PROBE[:1])
    load = time.perf_counter() - started
    started = time.perf_counter()
    vectors = await embedder.embed(EMBED_PROBE)
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0)
    return {
        "model": model_id,
        "kind": "embed",
        "load_s": round(load, 3),
        "dimensions": int(vectors.shape[1]),
        "texts": len(EMBED_PROBE),
        "texts_per_s": round(len(EMBED_PROBE) / elapsed, 1),
    }
