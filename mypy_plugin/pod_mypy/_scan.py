"""Every expression of a module, sorted by the kinds the module-wide checks read.

One traversal of the module (mypy's own, compiled) and one pass sorting its result serve
the provenance pass, the hidden-registration scan and the process-wide-callback scan: each
reads only the kinds it needs instead of testing every expression itself.
"""

from __future__ import annotations

from typing import Any, Final, final

from mypy.nodes import (
    AssignmentExpr,
    AssignmentStmt,
    Block,
    CallExpr,
    CastExpr,
    ClassDef,
    Decorator,
    FuncDef,
    GlobalDecl,
    IfStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    TypeInfo,
    Var,
)
from mypy.server.subexpr import get_subexpressions

__all__ = [
    "ASSIGNMENT_STMT",
    "BLOCK",
    "CALL_EXPR",
    "CLASS_DEF",
    "DECORATOR",
    "FUNC_DEF",
    "GLOBAL_DECL",
    "IF_STMT",
    "MEMBER_EXPR",
    "MYPY_FILE",
    "NAME_EXPR",
    "TYPE_INFO",
    "VAR",
    "ModuleExpressions",
]

# mypy's node classes as constants, for the tests by exact class on hot paths: compiled, a
# class imported from mypy is looked up in the module's namespace at each use, a Final
# constant is read from a C static (interpreted, both are one global lookup).
NAME_EXPR: Final = NameExpr
MEMBER_EXPR: Final = MemberExpr
CALL_EXPR: Final = CallExpr
TYPE_INFO: Final = TypeInfo
MYPY_FILE: Final = MypyFile
VAR: Final = Var
ASSIGNMENT_STMT: Final = AssignmentStmt
BLOCK: Final = Block
IF_STMT: Final = IfStmt
FUNC_DEF: Final = FuncDef
DECORATOR: Final = Decorator
CLASS_DEF: Final = ClassDef
GLOBAL_DECL: Final = GlobalDecl


@final
class ModuleExpressions:
    """The expressions of one module, all of them and by kind (each in source order)."""

    __slots__ = ("_callees", "all", "calls", "casts", "members", "names", "walruses")

    def __init__(self, tree: MypyFile) -> None:
        self.all = get_subexpressions(tree)
        # By exact class (mypy has no subclasses of these), most frequent first, with the
        # classes in locals: compiled, each test is then a pointer comparison.
        name_kind, member_kind, call_kind = NAME_EXPR, MEMBER_EXPR, CALL_EXPR
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
