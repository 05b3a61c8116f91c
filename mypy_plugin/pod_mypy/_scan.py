"""Every expression of a module, sorted by the kinds the module-wide checks read.

One traversal of the module (mypy's own, compiled) and one pass sorting its result serve
the provenance pass, the hidden-registration scan and the process-wide-callback scan: each
reads only the kinds it needs instead of testing every expression itself.
"""

from __future__ import annotations

from typing import Any, final

from mypy.nodes import (
    AssignmentExpr,
    CallExpr,
    CastExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
)
from mypy.server.subexpr import get_subexpressions

__all__ = ["ModuleExpressions"]


@final
class ModuleExpressions:
    """The expressions of one module, all of them and by kind (each in source order)."""

    __slots__ = ("_callees", "all", "calls", "casts", "members", "names", "walruses")

    def __init__(self, tree: MypyFile) -> None:
        self.all = get_subexpressions(tree)
        # By exact class (mypy has no subclasses of these), most frequent first, with the
        # classes in locals: compiled, each test is then a pointer comparison.
        name_kind, member_kind, call_kind = NameExpr, MemberExpr, CallExpr
        cast_kind, walrus_kind = CastExpr, AssignmentExpr
        names: list[Any] = []
        members: list[Any] = []
        calls: list[Any] = []
        casts: list[Any] = []
        walruses: list[Any] = []
        for expr in self.all:
            kind = type(expr)
            if kind is name_kind:
                names.append(expr)
            elif kind is member_kind:
                members.append(expr)
            elif kind is call_kind:
                calls.append(expr)
            elif kind is cast_kind:
                casts.append(expr)
            elif kind is walrus_kind:
                walruses.append(expr)
        self.names: list[NameExpr] = names
        self.members: list[MemberExpr] = members
        self.calls: list[CallExpr] = calls
        self.casts: list[CastExpr] = casts
        self.walruses: list[AssignmentExpr] = walruses
        self._callees: set[int] | None = None

    @property
    def callees(self) -> set[int]:
        """The identities of the expressions called (an attribute or name used otherwise is
        a value: ``on = registry.on``, ``map(HANDLERS.append, ...)``)."""
        if self._callees is None:
            self._callees = {id(call.callee) for call in self.calls}
        return self._callees
