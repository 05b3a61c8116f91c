"""Every frozen model in ``llm_worker`` and ``pod`` says so where every checker can see it.

Plain mypy and pyright read ``frozen=True`` as a class keyword (through pydantic's
``dataclass_transform``), not ``model_config = ConfigDict(frozen=True)``: declared that way,
``finished.text = "x"`` passes both checkers and fails only at run time. So: class keywords
for pydantic models, ``@final`` frozen dataclasses for the rest.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from pydantic import BaseModel

import llm_worker
import pod


def _modules() -> list[str]:
    names: list[str] = []
    for package in (llm_worker, pod):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.endswith(".__main__"):  # importing it runs the CLI
                names.append(info.name)
    return names


def _models() -> list[type[BaseModel]]:
    found: dict[str, type[BaseModel]] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseModel)
                and value.__module__ == name
                and value.__qualname__.isidentifier()  # not a generated argument model
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


MODELS = _models()
# Models meant to change are listed here with the reason; none today.
MUTABLE_BY_DESIGN: frozenset[str] = frozenset()


def _class_node(cls: type) -> ast.ClassDef:
    source = Path(inspect.getfile(cls)).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return node
    raise AssertionError(f"no class {cls.__name__} in {inspect.getfile(cls)}")


def test_the_walk_finds_the_models_of_both_packages() -> None:
    names = {model.__name__ for model in MODELS}
    assert {"ToolCallSummary", "Skip", "Message", "Finished", "WorkerSnapshot"} <= names
    assert {"PodSnapshot", "PermissionRule", "TraceEvent", "PodSettings"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__qualname__)
def test_every_model_is_frozen_and_forbids_extra_fields_by_class_keywords(
    model: type[BaseModel],
) -> None:
    if f"{model.__module__}.{model.__qualname__}" in MUTABLE_BY_DESIGN:
        return
    assert model.model_config.get("frozen") is True
    assert model.model_config.get("extra") == "forbid"
    node = _class_node(model)
    keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    assert keywords.get("frozen") is True, (
        f"{model.__name__}: declare frozen=True in the class line"
    )
    assert keywords.get("extra") == "forbid", f"{model.__name__}: declare extra='forbid' there"
    assignments = [
        target.id
        for statement in node.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        for target in (
            statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        )
        if isinstance(target, ast.Name)
    ]
    assert "model_config" not in assignments, f"{model.__name__}: no model_config, use keywords"


def _dataclasses() -> list[type]:
    found: dict[str, type] = {}
    for name in _modules():
        for value in vars(importlib.import_module(name)).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == name
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


@pytest.mark.parametrize("cls", _dataclasses(), ids=lambda c: c.__qualname__)
def test_frozen_dataclasses_are_final(cls: type) -> None:
    params = getattr(cls, "__dataclass_params__")  # noqa: B009
    if params.frozen:
        assert getattr(cls, "__final__", False), f"{cls.__name__}: a frozen dataclass is @final"
