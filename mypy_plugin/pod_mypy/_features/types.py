"""The type rule: every expression of a hook module has a known type that reaches no
privileged class, and every value it holds is of a tamed class.

- ``Any`` (explicit or inferred) is refused: it hides what a value is. The ``Any`` mypy gives
  special forms (a reference to ``Literal``, an alias) is not a value and is passed over; the
  ``Any`` mypy makes of an error is answered apart (``ERROR_ANY``), and passed only on a line
  where mypy reported an error (it makes some silently: a ``__match_args__`` it cannot read).
- A class anywhere in a type (argument, result, type argument) that has the privileged marker
  is refused (``hook-boundary``).
- A value (an instance type, a function's result) must be of a class tamed by the database,
  of ``pod``'s hook API, of a hook module or of a granted capability. What a function *takes*
  is not a value hook code holds: a tamed function whose parameters mention an untamed class
  (``Logger.info``'s ``exc_info``) is fine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Final, final

from mypy.messages import format_type
from mypy.nodes import TypeInfo
from mypy.options import Options
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    Overloaded,
    ParamSpecType,
    ProperType,
    TupleType,
    Type,
    TypeAliasType,
    TypedDictType,
    TypeOfAny,
    TypeType,
    TypeVarTupleType,
    TypeVarType,
    UnionType,
    UnpackType,
    get_proper_type,
)

__all__ = ["ERROR_ANY", "TypeRule", "shown", "some_part"]

_PASSED_ANY: Final = frozenset({TypeOfAny.special_form, TypeOfAny.implementation_artifact})
_ALWAYS_VALUES: Final = frozenset(
    {
        "builtins.object",
        "builtins.function",
        "builtins.tuple",
        "types.ModuleType",  # a module reference: its names are checked where they are used
        "types.NoneType",
        "typing._TypedDict",
        "builtins.ellipsis",
        "types.EllipsisType",
        "types.NotImplementedType",  # what a binary operator returns for an operand it refuses
    }
)


@final
class TypeRule:
    """Judges types for one build; answers are kept per type (types compare by value)."""

    def __init__(
        self,
        is_privileged: Callable[[TypeInfo], bool],
        class_allowed: Callable[[TypeInfo], bool],
        options: Options,
    ) -> None:
        self._is_privileged = is_privileged
        self._class_allowed = class_allowed
        self._options = options
        self._known: dict[Type, str | None] = {}
        self._by_id: dict[int, tuple[Type, str | None]] = {}
        """The same answers by the type object (kept alive here, so its id stays its own):
        most expressions share their type object with others, and hashing a type walks it."""
        self.by_class: dict[TypeInfo, str | None] = {}
        """The answers for instances of a class without type arguments."""
        self._any_met = False

    def forget(self) -> None:
        self._known.clear()
        self._by_id.clear()
        self.by_class.clear()

    def problem(self, typ: Type) -> tuple[str, bool] | None:
        """What is wrong with a hook-code expression of type ``typ``: (message, privileged)."""
        proper = get_proper_type(typ)
        if isinstance(proper, Instance) and not proper.args:  # most are: one answer a class
            found = self.by_class.get(proper.type, _MISSING)
            if found is _MISSING:
                found = self._instance(proper, value=True, seen=set())
                self.by_class[proper.type] = found
        else:
            same = self._by_id.get(id(typ))
            found = same[1] if same is not None and same[0] is typ else self._answer(typ)
        if found is None:
            return None
        return found, found.startswith(_PRIVILEGED_MARK)

    def _answer(self, typ: Type) -> str | None:
        try:
            known = self._known.get(typ, _MISSING)
        except (TypeError, RecursionError):  # an unhashable or self-referring type
            known = _MISSING
        if known is not _MISSING:
            self._by_id[id(typ)] = (typ, known)
            return known
        self._any_met = False
        found = self._judge(typ, value=True, seen=set())
        # mypy's types compare equal whatever kind of Any they hold, and the kind decides
        # the answer: an answer that judged an Any as a value answers for that type alone.
        if not self._any_met:
            self._by_id[id(typ)] = (typ, found)
            with contextlib.suppress(TypeError, RecursionError):
                self._known[typ] = found
        return found

    def _judge(self, typ: Type, *, value: bool, seen: set[int]) -> str | None:
        if isinstance(typ, TypeAliasType):
            alias = typ.alias
            key = id(alias) if alias is not None else id(typ)
            if key in seen:
                return None  # a recursive alias (``JsonValue``): its members are judged once
            seen.add(key)
            for arg in typ.args:
                found = self._judge(arg, value=value, seen=seen)
                if found is not None:
                    return found
        proper = get_proper_type(typ)
        return self._judge_proper(proper, value=value, seen=seen)

    def _judge_proper(self, proper: ProperType, *, value: bool, seen: set[int]) -> str | None:
        if isinstance(proper, AnyType):
            # Where it is a value's (not inside a signature, where only privileged classes
            # count), the kind of Any decides the answer.
            self._any_met = self._any_met or value
            if proper.type_of_any in _PASSED_ANY:
                return None
            return ERROR_ANY if proper.type_of_any == TypeOfAny.from_error else _ANY
        if isinstance(proper, Instance):
            return self._instance(proper, value=value, seen=seen)
        if isinstance(proper, (CallableType, Overloaded)):
            # A function is judged by what it can hand over (its result is a typed expression
            # of its own where it is called); its signature must not name a privileged class.
            signatures = proper.items if isinstance(proper, Overloaded) else [proper]
            for signature in signatures:
                for part in [*signature.arg_types, signature.ret_type]:
                    found = self._judge(part, value=False, seen=seen)
                    if found is not None and found.startswith(_PRIVILEGED_MARK):
                        return found
            return None
        if isinstance(proper, UnionType):
            # typeshed writes "X | MaybeNone" (an alias of Any) for results that are X or
            # None in practice: an Any beside other members is read as that convention.
            items = [
                item for item in proper.items if not isinstance(get_proper_type(item), AnyType)
            ]
        elif isinstance(proper, TupleType):
            items = [*proper.items, proper.partial_fallback]
        elif isinstance(proper, TypedDictType):
            items = list(proper.items.values())
        elif isinstance(proper, TypeType):
            items = [proper.item]
        elif isinstance(proper, LiteralType):
            items = [proper.fallback]
        elif isinstance(proper, TypeVarType):
            items = [proper.upper_bound, *proper.values]
        elif isinstance(proper, (ParamSpecType, TypeVarTupleType)):
            items = [proper.upper_bound]
        elif isinstance(proper, UnpackType):
            items = [proper.type]
        else:
            return None  # None, Never, a partial or deleted type: nothing to reach
        for item in items:
            found = self._judge(item, value=value, seen=seen)
            if found is not None:
                return found
        return None

    def _instance(self, instance: Instance, *, value: bool, seen: set[int]) -> str | None:
        info = instance.type
        fullname = info.fullname
        if self._is_privileged(info):
            return f'{_PRIVILEGED_MARK}privileged type "{info.name}"'
        if (
            value
            and fullname not in _ALWAYS_VALUES
            and not self._class_allowed(info)
            and info.typeddict_type is None
        ):
            shown = format_type(instance, self._options)
            return f"a value of type {shown}, which is not tamed"
        for arg in instance.args:
            found = self._judge(arg, value=value, seen=seen)
            if found is not None:
                return found
        return None


_MISSING: Final = "\x01"
"""No answer yet (no problem starts with it)."""
_PRIVILEGED_MARK: Final = "\x00"
"""Prefixes a problem that is a privileged type (reported as ``hook-boundary``)."""
_ANY: Final = "type Any"
ERROR_ANY: Final = "type Any (made of an error)"
"""An ``Any`` mypy made of an error: passed where mypy reported one (the caller knows)."""


def shown(problem: str) -> str:
    """A problem as a message shows it (without the internal mark)."""
    return problem.removeprefix(_PRIVILEGED_MARK)


def some_part(
    typ: Type, test: Callable[[ProperType], bool | None], *, parameters: bool = False
) -> bool:
    """Whether ``test`` answers True for a part of ``typ`` a value of it can hold: type
    arguments, union and tuple items (and a NamedTuple's class), TypedDict values, a
    callable's result (and its parameters, with ``parameters``), ``type[X]``'s ``X``,
    overload items. ``test`` answers True (found), False (not here, nor inside) or None
    (look inside). Each alias is expanded once, so a recursive one (``JsonValue``) ends; its
    arguments are looked at too, so what a later expansion holds was seen at the first. No
    depth limit: one would hide a part."""
    if type(typ) is Instance and not typ.args:  # most types: nothing inside
        return test(typ) is True
    seen: set[int] | None = None
    stack = [typ]
    while stack:
        part = stack.pop()
        if isinstance(part, TypeAliasType):
            key = id(part.alias) if part.alias is not None else id(part)
            if seen is None:
                seen = set()
            elif key in seen:
                continue
            seen.add(key)
            stack.extend(part.args)
        proper = get_proper_type(part)
        answer = test(proper)
        if answer is not None:
            if answer:
                return True
            continue
        if isinstance(proper, Instance):
            stack.extend(proper.args)
        elif isinstance(proper, UnionType):
            stack.extend(proper.items)
        elif isinstance(proper, TupleType):
            stack.extend(proper.items)
            if proper.partial_fallback.type.fullname != "builtins.tuple":  # a NamedTuple
                stack.append(proper.partial_fallback)  # (a plain one's may say tuple[Any])
        elif isinstance(proper, TypedDictType):
            stack.extend(proper.items.values())
        elif isinstance(proper, CallableType):
            stack.append(proper.ret_type)
            if parameters:
                stack.extend(proper.arg_types)
        elif isinstance(proper, TypeType):
            stack.append(proper.item)
        elif isinstance(proper, Overloaded):
            stack.extend(proper.items)
    return False
