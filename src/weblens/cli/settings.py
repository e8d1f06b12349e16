"""Settings for a command: a bad value is one clear message and exit 2, never a traceback.

The message names where the value came from — the environment variable, `.env`, or the
config file with its line — and what is expected. Keys weblens does not know (`api_kye`,
`[serch]`, `WEBLENS_SERCH_PROVIDER`) are warned about with the closest known name,
because pydantic-settings ignores them silently and the user would wonder why a setting
has no effect.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from weblens.cli.output import fail, note
from weblens.config import ENV_PREFIX, Settings, config_file_path, env_name, get_settings
from weblens.config_file import config_text, read_config
from weblens.errors import NotConfiguredError
from weblens.redact import redact_text

__all__ = ["SETTINGS_EXIT_CODE", "load_settings", "unknown_keys"]

SETTINGS_EXIT_CODE = 2
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")
_EXTRA_ENV = ("WEBLENS_CONFIG",)


def load_settings(*, as_json: bool = False) -> Settings:
    """The settings, or exit 2 with a message that says which value is wrong and why."""
    try:
        settings = get_settings()
    except ValidationError as exc:
        fail(_explain_validation(exc), "not_configured", SETTINGS_EXIT_CODE, as_json=as_json)
    except tomllib.TOMLDecodeError as exc:
        fail(f"{config_file_path()} is not valid TOML: {exc}", "not_configured", SETTINGS_EXIT_CODE, as_json=as_json)
    except (NotConfiguredError, OSError) as exc:
        fail(str(exc), "not_configured", SETTINGS_EXIT_CODE, as_json=as_json)
    for warning in unknown_keys():
        note(f"warning: {warning}", "yellow")
    return settings


# -- where a bad value came from ---------------------------------------------------------------


def _env_names(loc: tuple[str, ...]) -> list[str]:
    if len(loc) == 1:
        return [f"{ENV_PREFIX}{loc[0]}".upper()]
    names = [env_name(loc[0], loc[1]), f"{ENV_PREFIX}{loc[0]}_{loc[1]}".upper(), f"{ENV_PREFIX}{loc[0]}".upper()]
    return list(dict.fromkeys(names))


def _dotenv() -> dict[str, str | None]:
    from dotenv import dotenv_values

    return dict(dotenv_values(".env")) if Path(".env").is_file() else {}


def _toml_line(path: Path, loc: tuple[str, ...]) -> int | None:
    """The line of `loc` (section path, then key) in a TOML file, found by reading it as text."""
    try:
        lines = config_text(path, warn=False).splitlines()
    except NotConfiguredError:
        return None
    *tables, key = loc
    table: list[str] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]\s*(#.*)?", stripped)
        if header:
            table = [part.strip().strip("\"'") for part in header.group(1).split(".")]
            continue
        assignment = re.match(r"([A-Za-z0-9_.\"' -]+?)\s*=", stripped)
        if not assignment:
            continue
        dotted = [part.strip().strip("\"'") for part in assignment.group(1).split(".")]
        if [*table, *dotted] == [*tables, key]:
            return number
        if [*table, *dotted] == list(tables) and tables:  # the whole section as an inline table
            return number
    return None


def _origin(loc: tuple[str, ...]) -> str:
    """Where the value at `loc` was set, the way a user would find it."""
    for name in _env_names(loc):
        if name in os.environ:
            return f"the environment variable {name}"
    dotenv = _dotenv()
    for name in _env_names(loc):
        if name in dotenv:
            return f"{name} in .env"
    path = config_file_path()
    if path is not None:
        line = _toml_line(path, loc)
        where = f"{path} line {line}" if line else str(path)
        key = f"`{loc[-1]}` under [{'.'.join(loc[:-1])}]" if len(loc) > 1 else f"`{loc[0]}`"
        return f"{key} in {where}"
    return "the settings"


def _default(loc: tuple[str, ...]) -> Any:
    model: Any = Settings
    for part in loc:
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return None
        field = fields[part]
        model = field.annotation
        value = field.get_default(call_default_factory=True)
    return value if not isinstance(value, BaseModel) else None


def _explain_validation(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        loc = tuple(str(part) for part in error["loc"])
        if not loc:
            problems.append(error["msg"])
            continue
        default = _default(loc)
        hint = f" (default: {default})" if default not in (None, "", []) else ""
        value = error.get("input")
        if isinstance(value, str):
            value = redact_text(value)  # a URL's password, a key
        shown = f" {value!r}" if isinstance(value, str | int | float | bool) else ""
        problems.append(f"{'.'.join(loc)}: the value{shown} from {_origin(loc)} is not valid: {error['msg']}{hint}")
    return "invalid setting: " + "; ".join(problems)


# -- keys weblens does not know ---------------------------------------------------------------


def _closest(name: str, known: list[str]) -> str | None:
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return match[0] if match else None


def _model_of(model: Any, key: str) -> type[BaseModel] | None:
    annotation = model.model_fields[key].annotation
    for candidate in (annotation, *getattr(annotation, "__args__", ())):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _unknown_in(data: Mapping[str, Any], model: type[BaseModel], path: tuple[str, ...]) -> Iterator[str]:
    """What is unknown in `data` (a config file's tables) against `model`, with the closest known name."""
    known = list(model.model_fields)
    for key, value in data.items():
        if key in model.model_fields:
            inner = _model_of(model, key)
            if inner is not None and isinstance(value, Mapping):
                yield from _unknown_in(value, inner, (*path, key))
            continue
        match = _closest(key, known)
        if isinstance(value, Mapping):
            named = ".".join((*path, key))
            yield f"unknown section [{named}]" + (f"; did you mean [{'.'.join((*path, match))}]?" if match else "")
        else:
            where = f" in [{'.'.join(path)}]" if path else ""
            yield f"unknown key {key!r}{where}" + (f"; did you mean {match!r}?" if match else "")


def _known_env() -> list[str]:
    names = list(_EXTRA_ENV)
    for section in Settings.model_fields:
        names.append(f"{ENV_PREFIX}{section}".upper())
        inner = _model_of(Settings, section)
        if inner is not None:
            names += [f"{ENV_PREFIX}{section}_{key}".upper() for key in inner.model_fields]
    return names


def unknown_keys() -> list[str]:
    """Warnings for settings weblens would silently ignore: unknown file keys and WEBLENS_ variables."""
    warnings: list[str] = []
    path = config_file_path()
    if path is not None and path.is_file():
        try:
            data = read_config(path, warn=False)
        except (NotConfiguredError, tomllib.TOMLDecodeError):
            data = {}
        for problem in _unknown_in(data, Settings, ()):
            warnings.append(f"{path}: {problem} (ignored)")
    known = _known_env()
    given = {name: "the environment" for name in os.environ} | {n: ".env" for n in _dotenv() if n not in os.environ}
    for name, where in given.items():
        if name.upper().startswith(ENV_PREFIX) and name.upper() not in known:
            match = _closest(name.upper(), known)
            hint = f"; did you mean {match}?" if match else ""
            warnings.append(f"unknown variable {name} in {where}{hint} (ignored)")
    return warnings
