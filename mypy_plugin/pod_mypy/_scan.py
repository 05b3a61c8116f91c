"""Every expression of a module, sorted by the kinds the module-wide checks read.

One traversal of the module (mypy's own, compiled) and one pass sorting its result serve
the provenance pass, the hidden-registration scan and the process-wide-callback scan: each
reads only the kinds it needs instead of testing every expression itself.
"""

from __future__ import annotations

from typing import final

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
        self.calls: list[CallExpr] = []
        self.casts: list[CastExpr] = []
        self.members: list[MemberExpr] = []
        self.names: list[NameExpr] = []
        self.walruses: list[AssignmentExpr] = []
        self._callees: set[int] | None = None
        calls, members, names = self.calls, self.members, self.names
        # By exact class (mypy has no subclasses of these), most frequent first: compiled,
        # each test is a pointer comparison.
        for expr in self.all:
            if type(expr) is NameExpr:
                names.append(expr)
            elif type(expr) is MemberExpr:
                members.append(expr)
            elif type(expr) is CallExpr:
                calls.append(expr)
            elif type(expr) is CastExpr:
                self.casts.append(expr)
            elif type(expr) is AssignmentExpr:
                self.walruses.append(expr)

    @property
    def callees(self) -> set[int]:
        """The identities of the expressions called (an attribute or name used otherwise is
        a value: ``on = registry.on``, ``map(HANDLERS.append, ...)``)."""
        if self._callees is None:
            self._callees = {id(call.callee) for call in self.calls}
        return self._callees
