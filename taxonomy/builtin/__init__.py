"""The codebooks the product ships with, as codebook files."""

from pathlib import Path

BUILTIN_DIR = Path(__file__).resolve().parent


def builtin_names() -> list[str]:
    return sorted(path.stem for path in BUILTIN_DIR.glob("*.yaml"))


def builtin_path(name: str) -> Path:
    return BUILTIN_DIR / f"{name}.yaml"
