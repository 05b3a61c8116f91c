"""Every name the plugin depends on: fullnames in ``llm_worker``/``pod``, error codes, messages.

A unit test imports every fullname here, so renaming one of them in the library fails the
test suite instead of silently switching a check off.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode

SUPPORTED_MYPY: Final = ((2, 4), (2, 5))
"""mypy versions whose internals the plugin is tested against: ``>=2.4,<2.5``."""

# -- fullnames in llm_worker and pod -----------------------------------------------------

PRIVILEGED: Final = "llm_worker._privilege.Privileged"
"""The marker base: a class with it in its MRO is on the privileged side of the boundary."""
EVENTS_MODULE: Final = "pod.hooks._events"
"""The event catalogue's module: events are named from its ``HookEvent`` variables."""
HOOK_EVENT: Final = "pod.hooks._events.HookEvent"
"""The catalogue's event type, ``HookEvent[Input, Output]``."""
REGISTRY_CLASS: Final = "pod.hooks._registry.HookRegistry"
"""The registry: its ``on`` must be called directly."""
REGISTRY_ON: Final = "pod.hooks._registry.HookRegistry.on"
"""``registry.on(EVENT, fn)`` and ``registry.on(EVENT)``."""
REGISTRY_DECORATOR_CALL: Final = "pod.hooks._registry._Decorator.__call__"
"""Applying ``@registry.on(EVENT)`` to a function."""
HOOK_BASE: Final = "pod.hooks._base.Hook"
"""Base class of class-based hooks."""
HOOK_BASE_INIT_SUBCLASS: Final = "pod.hooks._base.Hook.__init_subclass__"
"""Type-checked once per ``Hook`` subclass: the plugin's trigger for class-based hooks."""
HOOK_DECORATOR: Final = "pod.hooks._base.hook"
"""``hook(EVENT)``."""
HOOK_DECORATOR_CALL: Final = "pod.hooks._base._HookDecorator.__call__"
"""Applying ``@hook(EVENT)`` to a function."""
DECLARED_HOOK_TYPES: Final = frozenset(
    {"pod.hooks._base.HookFunction", "pod.hooks._base.AsyncHookFunction"}
)
"""Types of functions declared with ``@hook``: checked where they are defined."""

FUNCTION_HOOK_NAMES: Final = frozenset({HOOK_EVENT})
"""Functions (and constructors) whose calls the plugin looks at."""
METHOD_HOOK_NAMES: Final = frozenset(
    {REGISTRY_ON, REGISTRY_DECORATOR_CALL, HOOK_DECORATOR_CALL, HOOK_BASE_INIT_SUBCLASS}
)
"""Methods whose calls the plugin looks at (the user's own ``__init_subclass__`` too)."""

LIBRARY_FULLNAMES: Final = (
    PRIVILEGED,
    HOOK_EVENT,
    REGISTRY_CLASS,
    REGISTRY_ON,
    REGISTRY_DECORATOR_CALL,
    HOOK_BASE,
    HOOK_BASE_INIT_SUBCLASS,
    HOOK_DECORATOR,
    HOOK_DECORATOR_CALL,
    *sorted(DECLARED_HOOK_TYPES),
)
"""Every fullname above, for the test that imports them."""

# -- third-party and stdlib fullnames -------------------------------------------------------

PYDANTIC_BASE_MODEL: Final = "pydantic.main.BaseModel"
PYDANTIC_PLUGIN_METADATA: Final = "pydantic-mypy-metadata"
"""Where pydantic's own mypy plugin records a model's config (if the user enables it)."""
MAPPING_PROXY: Final = "types.MappingProxyType"
IMMUTABLE_SCALARS: Final = frozenset(
    {
        "builtins.str",
        "builtins.int",
        "builtins.float",
        "builtins.complex",
        "builtins.bool",
        "builtins.bytes",
        "datetime.date",
        "datetime.datetime",
        "datetime.time",
        "datetime.timedelta",
        "datetime.timezone",
        "decimal.Decimal",
        "fractions.Fraction",
        "uuid.UUID",
    }
)
"""Instances of these classes (and their subclasses in the stdlib) never change."""
IMMUTABLE_CONTAINERS: Final = frozenset({"builtins.tuple", "builtins.frozenset", MAPPING_PROXY})
"""Containers that are immutable when their type arguments are."""

ESCAPE_CALLABLES: Final = frozenset(
    {
        "builtins.getattr",
        "builtins.setattr",
        "builtins.delattr",
        "builtins.vars",
        "builtins.globals",
        "builtins.locals",
        "builtins.eval",
        "builtins.exec",
        "builtins.compile",
        "builtins.__import__",
        "importlib.import_module",
        "sys._getframe",
        "sys._current_frames",
        "inspect.currentframe",
        "inspect.stack",
        "inspect.trace",
        "inspect.getouterframes",
        "inspect.getinnerframes",
        "inspect.getmembers",
        "inspect.getmembers_static",
        "inspect.getclosurevars",
        "inspect.getattr_static",
        "operator.attrgetter",
        "operator.methodcaller",
    }
)
"""Functions that reach objects by name or through the interpreter's state."""
PROCESS_WIDE_CALLS: Final = frozenset(
    {
        "atexit.register",
        "sys.addaudithook",
        "sys.settrace",
        "sys.setprofile",
        "sys.set_asyncgen_hooks",
        "threading.settrace",
        "threading.setprofile",
        "threading.settrace_all_threads",
        "threading.setprofile_all_threads",
        "signal.signal",
        "copyreg.pickle",
        "codecs.register",
        "faulthandler.register",
        "logging.setLoggerClass",
        "logging.setLogRecordFactory",
        "asyncio.set_event_loop_policy",
        "asyncio.events.set_event_loop_policy",
        "os.register_at_fork",
        "posix.register_at_fork",
        "_signal.signal",
        "_thread.settrace",
    }
)
"""Functions that install a process-wide callback: not allowed in a module with hook code."""
PROCESS_WIDE_METHODS: Final = frozenset(
    {
        "addHandler",
        "addFilter",
        "set_exception_handler",
        "set_task_factory",
        "append",
        "insert",
        "extend",
        "__setitem__",
        "update",
    }
)
"""Methods that install one on a logger, handler or loop, or change an interpreter list."""
PROCESS_WIDE_OWNERS: Final = frozenset({"logging", "asyncio"})
"""Libraries whose objects' ``PROCESS_WIDE_METHODS`` install process-wide callbacks."""
PROCESS_WIDE_LISTS: Final = frozenset({"sys.meta_path", "sys.path_hooks", "sys.modules"})
"""Interpreter tables that decide what imports and runs."""
ESCAPE_MODULES: Final = frozenset({"gc", "ctypes"})
"""Modules that reach any live object (their submodules too)."""
ESCAPE_ATTRIBUTES: Final = frozenset(
    {
        "__dict__",
        "__setattr__",
        "__delattr__",
        "__getattribute__",
        "__closure__",
        "__globals__",
        "__code__",
        "__builtins__",
        "__subclasses__",
        "__self__",
        "__wrapped__",
        "f_back",
        "f_locals",
        "f_globals",
        "f_builtins",
        "tb_frame",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "cell_contents",
        "__mro__",
        "__bases__",
        "__base__",
        "__init__",
        "__new__",
        "__setstate__",
        "__getstate__",
        "__reduce__",
        "__reduce_ex__",
        "__set_name__",
        "__init_subclass__",
        "__class_getitem__",
        "__get__",
        "__set__",
        "__delete__",
        "__func__",
        "__defaults__",
        "__kwdefaults__",
        "__self_class__",
        "__thisclass__",
        "__pydantic_validator__",
        "__pydantic_serializer__",
        "__pydantic_decorators__",
        "__get_pydantic_core_schema__",
        "__pydantic_extra__",
        "__pydantic_fields_set__",
        "__pydantic_private__",
    }
)
"""Attributes that expose namespaces, frames, closures or bypass ``__setattr__`` guards."""
ESCAPE_TYPES: Final = frozenset({"types.FrameType", "types.CellType", "types.CodeType"})
"""Values of these types lead to other code's variables."""

# -- error codes (public API: docs/plugin.md) ----------------------------------------------

HOOK_BOUNDARY: Final = ErrorCode(
    "hook-boundary", "Hook code reaches a privileged (interceptor-only) type", "pod"
)
HOOK_ESCAPE: Final = ErrorCode(
    "hook-escape",
    "Hook code uses an escape hatch that hides what it reaches",
    "pod",
    sub_code_of=HOOK_BOUNDARY,
)
HOOK_INPUT_MUTABLE: Final = ErrorCode(
    "hook-input-mutable", "A hook event's Input or Output is not deeply immutable", "pod"
)
HOOK_SIGNATURE: Final = ErrorCode(
    "hook-signature",
    "A hook does not take exactly its event's Input or may return a forbidden decision",
    "pod",
)

# -- messages --------------------------------------------------------------------------------

ATTRIBUTE: Final = 'attribute "{name}" of type {type}'
IS_PRIVILEGED: Final = "{subject} is privileged"
REACHES: Final = '{subject} reaches privileged type "{target}"{via}'
ESCAPE: Final = "{what} is not allowed in hook code"
IN_HOOK: Final = '{problem} (in hook "{hook}")'
HELPER_REACHES: Final = 'hook "{hook}" calls "{helper}", where {problem} (line {line})'
HOLDS: Final = '"{name}" holds a value derived from a privileged object: {origin} (line {line})'
UNKNOWN_BINDING: Final = (
    'cannot tell what "{name}" holds: {source} (line {line}) has type {type}, which could '
    "hold anything (a class with methods: any subclass of it, unless it is @final); give it "
    "a deeply immutable or closed type, or bind it to a function of this module"
)
IMPORTED_OPEN: Final = (
    '"{name}" of module "{module}" has type {type}, which could hold anything: hook code may '
    "use another module's values only when their type is deeply immutable or closed"
)
HIDDEN_OVERRIDE: Final = (
    'cannot verify what a "{name}" runs: its subclass "{sub}" in module "{module}" has methods '
    "the plugin cannot see from here; mark {name} @final, or define {sub} in this module"
)
UNVERIFIABLE_CODE: Final = (
    'cannot verify "{name}" of module "{module}": hook code may run only code of its own '
    "module, the standard library and installed packages (move it into this module, make it a "
    "data class without methods, or ship it as an installed package)"
)
UNCHECKED_MODULE: Final = (
    "cannot verify hook code in a module whose errors are all ignored (# mypy: ignore-errors, "
    "ignore_errors = True): mypy does not check its function bodies"
)
HAZARDS: Final = {
    "unreachable": "code that mypy treats as unreachable",
    "type_checking": "a TYPE_CHECKING condition (mypy checks only one of its branches)",
    "global": 'a "global" declaration (hook code may not rebind a module variable)',
}
MODULE_FORBIDS: Final = (
    "{what} is not allowed in a module with hook code (setup code there is checked too)"
)
MODULE_HAZARD: Final = (
    "a TYPE_CHECKING split with an else branch is not allowed in a module with hook code: "
    "mypy and the run would see different bindings"
)
IGNORE_IN_HOOK: Final = (
    '"# type: ignore" at line {line} is not allowed in hook code (in hook "{hook}")'
)
UNVERIFIABLE_IMPORTED: Final = (
    'cannot verify hook "{name}" defined in module "{module}": declare it with '
    "@hook(EVENT) there, make it a Hook subclass, or register it in its own module"
)
UNVERIFIABLE_DECLARED: Final = (
    "cannot verify hook: {what} is trusted only when it names a function declared with "
    "@hook(EVENT) or an instance built from a Hook subclass (a cast or a look-alike is not one)"
)
UNTRUSTED_PACKAGE: Final = (
    'cannot verify hook "{name}" of the installed package "{package}": mypy does not report '
    "errors in installed packages; list it in pod_mypy's trusted_packages to trust its hooks"
)
UNVERIFIABLE_EXPRESSION: Final = (
    "cannot verify hook of type {type}: register a function, a lambda, "
    "a @hook(EVENT) function or a Hook instance"
)
MISSING_LIBRARY_NAME: Final = (
    'pod_mypy cannot find "{fullname}" ({what}): the installed llm-pod does not match '
    "this plugin, so hook code cannot be checked"
)
NEEDS_TYPE_CHECKER: Final = (
    "pod_mypy needs mypy's own TypeChecker to check hook code, got {api}: "
    "run plain mypy (dmypy and other drivers are not supported)"
)
SIGNATURE_INPUT: Final = (
    'hook "{hook}" must take exactly the event\'s Input {expected}, not {actual}'
)
SIGNATURE_OUTPUT: Final = 'hook "{hook}" may return {actual}; its event allows only {expected}'
SIGNATURE_EVENT: Final = "cannot check hook: its event has type {actual}; pass one of pod.events"
MUTABLE: Final = (
    'HookEvent "{event}" {side} must be deeply immutable: {path} has type {type}, '
    "which is not known to be deeply immutable"
)
MUTABLE_MODEL: Final = (
    'HookEvent "{event}" {side} must be deeply immutable: {path} is a {kind} without frozen=True'
)
