"""Reading the TOML config file as people save it: UTF-8 (TOML's only encoding), but also
UTF-16 with a byte-order mark (Windows Notepad's "Unicode") and Windows-1252/Latin-1
(Notepad's "ANSI"). Those are read with a warning saying how to save the file; anything
else is one `NotConfiguredError` naming the file and the encoding, never a traceback."""

from __future__ import annotations

import codecs
import logging
import tomllib
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, TomlConfigSettingsSource

from weblens.errors import NotConfiguredError

__all__ = ["ConfigFileSource", "config_text", "read_config"]

logger = logging.getLogger("weblens.config")
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip
_warned: set[tuple[str, str]] = set()
"""Files already warned about: settings are read more than once in a process (`weblens config`
reads each source again to say where a value came from), the warning is said once."""
_SAVE_AS = "save it as UTF-8 (in Notepad: File > Save as > Encoding: UTF-8)"


def _decode(path: Path, data: bytes) -> tuple[str, str]:
    """(the text, the encoding it was read with)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding.upper().removesuffix("-SIG")
            except UnicodeDecodeError as exc:
                raise NotConfiguredError(
                    f"config file {path} starts with a {encoding.upper()} byte-order mark but is not valid "
                    f"{encoding.upper()} (byte {exc.start}): {_SAVE_AS}"
                ) from None
    if b"\x00" in data[:200]:
        raise NotConfiguredError(
            f"config file {path} looks like UTF-16 or UTF-32 without a byte-order mark (it has NUL bytes), "
            f"which weblens cannot read reliably: {_SAVE_AS}"
        )
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError as exc:
        raise NotConfiguredError(
            f"config file {path} is neither UTF-8 nor Windows-1252/Latin-1 (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}): {_SAVE_AS}"
        ) from None


def config_text(path: Path, *, warn: bool = True) -> str:
    """The file's text, however it was saved (see the module docstring); `warn` logs a
    warning when it was not saved as UTF-8."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise NotConfiguredError(
            f"config file {path} is a directory: name the file in it (e.g. {path}/weblens.toml)"
        ) from None
    except OSError as exc:
        raise NotConfiguredError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    text, encoding = _decode(path, data)
    if warn and encoding != "UTF-8" and (str(path), encoding) not in _warned:
        _warned.add((str(path), encoding))
        logger.warning("config file %s is saved as %s, not UTF-8: read it as such; %s", path, encoding, _SAVE_AS)
    return text


def read_config(path: Path, *, warn: bool = True) -> dict[str, Any]:
    """The file's TOML; a syntax error stays `tomllib.TOMLDecodeError` (its message has the line)."""
    return tomllib.loads(config_text(path, warn=warn))


class ConfigFileSource(TomlConfigSettingsSource):
    """pydantic-settings' TOML source, reading the file with `read_config`."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        super().__init__(settings_cls, toml_file=path)

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        return read_config(Path(file_path))
