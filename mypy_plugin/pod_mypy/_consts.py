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
HOOK_UNTAMED: Final = ErrorCode(
    "hook-untamed",
    "A hook module names what the taming database, pod's hook API, the capabilities and "
    "hook modules do not offer",
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

NEEDS_TYPE_CHECKER: Final = (
    "pod_mypy needs mypy's own TypeChecker to check hook code, got {api}: "
    "run plain mypy (dmypy and other drivers are not supported)"
)
MISSING_LIBRARY_NAME: Final = (
    'pod_mypy cannot find "{fullname}" ({what}): the installed llm-pod does not match '
    "this plugin, so hook code cannot be checked"
)
UNCHECKED_MODULE: Final = (
    "cannot verify hook code in a module whose errors are all ignored (# mypy: ignore-errors, "
    "ignore_errors = True): mypy does not check its function bodies"
)
STUB_HOOK_MODULE: Final = (
    'cannot verify hook module "{module}": mypy reads its stub ({path}), not the code that '
    "runs; remove the .pyi (a hook module is checked from its .py)"
)
NOT_HOOK_MODULE: Final = (
    'cannot verify hook "{name}": module "{module}" is not a hook module (define the '
    "HookRegistry, @hook(EVENT) function or Hook subclass at its top level, list it in "
    "[tool.pod_mypy] hook_modules, or host_modules if it is host-written)"
)
UNVERIFIABLE_IMPORTED: Final = (
    'cannot verify hook "{name}" defined in module "{module}", which is not a hook module: '
    "declare it with @hook(EVENT) there, or list the module in [tool.pod_mypy] hook_modules"
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
MESSAGES: Final = {
    "reflective": (
        'reading "{name}" is not allowed in hook code, whatever the receiver\'s type: it leads '
        "to frames (the run's locals and globals); hooks receive what they need as their Input"
    ),
    "reflective_defined": (
        'a hook-module class may not define "{name}": it is the name of a member that leads '
        "to frames, and hook code may not read it; rename it"
    ),
    "namedtuple_make": (
        "NamedTuple._make takes an iterable of anything and mypy believes the fields' types: "
        "build it with the class call, Point(x, y)"
    ),
    "exit_parameters": (
        "{name} must accept what with passes (type[BaseException] | None, BaseException | "
        "None, TracebackType | None): annotate its parameters so, or as *exc: object"
    ),
    "variance": (
        "TypeVar({name}=True) is not allowed in hook code: mypy lets a mutable attribute of "
        "a variant type variable hold a value of another class; use an invariant TypeVar"
    ),
    "variance_inferred": (
        'mypy infers the variance of "{variable}" in class "{cls}" as if "{name}" could not '
        'be written, because its name starts with "_": through a "{cls}" of another type '
        "argument it holds a value of any class; drop the underscore (mypy then infers the "
        "variance from it), or declare it Final"
    ),
    "cache_indirect": (
        "a functools cache accepts any hashable argument: call the cached function by its "
        "name (f(...), self.f(...)), where its parameters are checked"
    ),
    "cache_arguments": (
        "the arguments of this cached call do not match the function it caches (a functools "
        "cache accepts any hashable argument): pass what the function's parameters declare"
    ),
    "cache_value": (
        "a functools cache used as a value is called unchecked (it accepts any hashable "
        "argument): call it by its name, or pass a lambda that calls it"
    ),
    "assert": (
        "assert is not allowed in a hook module: mypy narrows on it and python -O removes it, "
        "so the narrowed type holds only in mypy; write if not ...: raise ... (or return a "
        "decision)"
    ),
    "partial_value": (
        "a functools.partial handed on as a value is called unchecked (its __call__ takes "
        "any argument): call it here, or hand on a lambda that calls the function"
    ),
    "ellipsis_annotation": (
        "Callable[..., T] is not allowed in hook code: mypy calls what it holds unchecked; "
        "give the parameter types (Callable[[int], T]), or a ParamSpec"
    ),
    "tuple_type_call": (
        "calling a type[tuple[...]] may build a NamedTuple from arguments mypy checks only "
        "against tuple: call the class itself"
    ),
    "method_decorator": (
        'the decorator over method "{name}" may return a callable object, which Python calls '
        "without the instance while mypy binds it as a method: type the decorator "
        "(f: T) -> T with T a TypeVar (it then returns the function it is handed), or "
        "decorate a module-level function"
    ),
    "dispatch_extra": (
        "a singledispatch implementation's parameters after the first are passed unchecked "
        "(the dispatcher takes *args: Any, and dispatches on the first only): annotate them "
        "object and narrow with isinstance"
    ),
    "untyped_callback": (
        "this hook-module callable is handed to a parameter that does not type what it is "
        "called with (Callable[..., T] or Any): call it yourself (a loop, a comprehension)"
    ),
    "narrowed": (
        'the narrowed type of "{name}" is not kept by the run: a call between the check and '
        "this read can rebind it; narrow a local copy (x = self.x; if isinstance(x, C): ...)"
    ),
    "narrowed_equality": (
        '"{operator}" narrows {name} to a hook class, but __eq__ gives the answer, not the '
        "class (a hook class's may answer True to anything): test the class with isinstance, "
        "or compare values of the declared type"
    ),
    "typeddict_final": (
        '@final on TypedDict "{cls}" is not allowed in a hook module: mypy then narrows a '
        'union by "key" in d, which a value with extra keys breaks; tell the members apart by '
        "a Literal tag key"
    ),
    "hidden_state": (
        'class "{cls}" may not define "{name}": its base "{base}" may keep state its stubs '
        "do not declare, and a name defined anew can give that state another type; keep the "
        "{base} in an attribute of a plain class instead"
    ),
    "enum_sunder": (
        'Enum "{cls}" may not define "{name}": Enum keeps its own state in _sunder_ names, '
        "and one defined anew can give that state another type; rename it"
    ),
    "with_hidden_suppression": (
        "this context manager's __exit__ is typed bool | None (or wider), so it may swallow "
        "the body's exception while mypy assumes it never does (and believes the "
        "assignments the body did not reach): type __exit__ -> None (it swallows nothing) "
        "or -> bool, or use a @contextmanager function of the hook module"
    ),
    "with_target": (
        "an unpacking or attribute target under a context manager that may swallow "
        "exceptions: a failing binding is swallowed and the old value kept under the new "
        "type; bind one name, and unpack it inside the block"
    ),
    "manager_swallows": (
        "a @contextmanager generator whose yield sits in a try with a handler (or a "
        "finally that returns), or in a with: it swallows the body's exception, which "
        "typeshed's bool | None makes mypy assume it never does; let it propagate "
        "(try/finally), or write a class whose __exit__ returns bool"
    ),
    "intersection": (
        "intersecting with a set of another element type is not allowed in hook code: the "
        "result is typed by this set's elements, but CPython keeps the smaller set's, and "
        "objects of one class with other type arguments can be equal; intersect sets of one "
        "element type (or build the result: {x for x in a if x in b})"
    ),
    "unbound_method": (
        'reading method "{name}" on a class held as a value (a variable, cls, type(x)) is not '
        "allowed in hook code: it may be a subclass's method, called with an instance mypy "
        "checked against the base only; call it on an instance (obj.{name}(...))"
    ),
    "assign_union": (
        'assigning attribute "{name}" through a union whose classes type it differently is '
        "not allowed in hook code: mypy checks the value against the union of their types, so "
        "one of them may end up holding another class; narrow the receiver to one class "
        "first (isinstance), or declare the attribute with one type in each"
    ),
    "assign_class_object": (
        'assigning attribute "{name}" of a class held as a value (a variable, cls, type(x)) '
        "is not allowed in hook code: it may be another class than its type says; assign "
        "through the class's own name"
    ),
    "library_override": (
        'a hook-module class may not redefine "{name}" of library class "{base}": the '
        "library's own code (caches, comparisons) trusts it; add a method of another name"
    ),
    "constructor": (
        'class "{cls}": its {name} narrows a parameter of a constructor of "{base}" to a hook '
        "class; through type[{base}] it receives what the base accepts; keep the base's "
        "parameter types (narrow with isinstance inside)"
    ),
    "untamed": "{what} is not tamed",
    "untamed_fix": (
        ": a hook module may name only pod's hook API, the taming database "
        "(docs/plugin.md), granted capabilities and hook modules"
    ),
    "import_host": (
        'a hook module may not import host module "{module}" (host_modules): '
        "hooks receive what they need as their Input"
    ),
    "import_project": (
        'module "{module}" is not a hook module, so a hook module may not import it: '
        "list it in [tool.pod_mypy] hook_modules (it is then checked as hook code), "
        "or grant what hooks use of it in capabilities"
    ),
    "import_try": (
        "an import inside try is not allowed in a hook module (mypy and the run could see "
        "different modules): import unconditionally"
    ),
    "star_import": (
        'star import from "{module}" is not allowed in a hook module: import the names used'
    ),
    "dunder": (
        'reading dunder attribute "{name}" is not allowed in hook code (defining dunder '
        "methods is): use the public API"
    ),
    "untyped": (
        'cannot check attribute "{name}": mypy gave its receiver no type here (code it '
        "treats as unreachable is not checked)"
    ),
    "getattr": (
        "{function}() with a computed, dunder or missing name is not allowed in hook code: "
        "name the attribute"
    ),
    "format_computed": (
        "str.{method}() with a computed format is not allowed in hook code: "
        "use an f-string or a literal format"
    ),
    "format_field": (
        'format field "{field}" reads an attribute or an item, which str.format does '
        "unchecked: format the value itself"
    ),
    "assign_module": (
        'assigning attribute "{name}" of module "{module}" is not allowed in hook code'
    ),
    "assign_foreign": (
        'assigning attribute "{name}" of "{cls}" is not allowed in hook code: only '
        "hook-module objects may be changed"
    ),
    "metaclass": 'class "{cls}": metaclass= is not allowed in a hook module',
    "base": (
        'class "{cls}" derives from "{base}", which is not tamed whole: hook-module classes '
        "derive from classes the database tames whole and from hook-module classes"
    ),
    "condition": (
        "a {name} condition is not allowed in a hook module: mypy checks one branch and "
        "the run takes the other"
    ),
    "unreachable": (
        "code that mypy treats as unreachable is not allowed in a hook module: its types "
        "are never checked"
    ),
    "privileged": "{subject} reaches {problem}",
    "any": (
        "{subject} has type Any, which is not allowed in hook code: give it a type "
        "(annotate it, or narrow it with isinstance)"
    ),
    "untamed_value": "{subject} is {problem}",
    "ignore": (
        '"# type: ignore" at line {line} is not allowed in a hook module: fix what it silences'
    ),
    "super_arguments": (
        "super() with arguments, or outside a method, is not allowed in hook code: "
        "call super() with no arguments in a method of a hook-module class"
    ),
    "stacklevel": (
        "warnings.warn with a stacklevel or a source is not allowed in hook code (it writes "
        "into another module's warning registry): warn with a message and a category"
    ),
    "isinstance_hook": (
        'class "{cls}" defines {name}, which changes what isinstance answers and mypy '
        "believes: not allowed in a hook module"
    ),
    "class_decorator": (
        'class "{cls}" has a decorator of the hook module that is not (cls: type[T]) -> '
        "type[T]: mypy keeps the class's name typed as the class whatever the decorator "
        "returns; write it as def deco(cls: type[T]) -> type[T] (it can then return only "
        "the class), or use a decorator of the database"
    ),
    "unbound_callable": (
        'class attribute "{name}" of "{cls}" holds a callable that is not a function: mypy '
        "calls it as a method (the instance first), Python calls it as it is (every argument "
        "one place left); define a method, or set it on the instance in __init__"
    ),
    "pow_call": (
        "pow(a, b) with a hook-module class is typed by a's __pow__, while the run asks "
        "b's __rpow__ when a's answers NotImplemented (or b's class derives from a's): "
        "write a ** b, which mypy types both ways"
    ),
    "yield_from_send": (
        "yield from a generator whose send type does not accept this generator's: every "
        "value sent here is handed to it unchecked; give both the same send type"
    ),
    "yield_from_iterator": (
        "yield from an iterator that is no generator, where a value is sent or the result "
        "used: its send method (if any) gets what is sent, and the result is whatever "
        "StopIteration its __next__ raises, which mypy types None; loop over it (for x in "
        "it: yield x)"
    ),
    "setter_over_attribute": (
        'the setter of property "{name}" ("{setter}") takes a narrower type than "{base}" '
        'declares for "{name}": "{base}"\'s code stores its values through the setter, '
        "which mypy never compares with the declaration; make the setter take the declared "
        "type, or rename one of them"
    ),
    "narrowed_capture": (
        'a nested function reads "{name}" of the function around it under a narrowed type: '
        "mypy keeps the outer narrowing, while the run reads the variable when the nested "
        "function is called (after a loop's next turn, or an except ... as rebinding it); "
        "narrow it inside the nested function, or pass it as an argument"
    ),
    "functional_enum": (
        "the functional Enum API (Enum(name, members, type=...)) is not allowed in hook code: "
        "mypy checks none of its member values against the mixin's __init__, which Enum "
        "calls with each; write the Enum as a class"
    ),
    "new_defined": (
        'class "{cls}" defines __new__: mypy checks a call against one of __new__ and '
        "__init__, and the run calls both with the same arguments; build it in __init__ "
        "(or a classmethod)"
    ),
    "missing_result": (
        'class "{cls}" defines __missing__ returning another type than its values ({typ}): '
        "d[key] is typed by the values and answered by __missing__ for an absent key; "
        "annotate it -> {typ}"
    ),
    "operator_result": (
        'class "{cls}" defines {name} returning another type than its own class: sum, '
        "math.prod and itertools.accumulate type their result as an operand's type, "
        "whatever {name} returns; annotate it -> {cls} (or Self) and return one, or "
        "NotImplemented"
    ),
    "iterator_result": (
        'class "{cls}" defines {name} not typed to return an {protocol}: iter() then types '
        "the items by __getitem__, while the run calls {name}; annotate it -> {protocol}[T]"
    ),
    "operand": (
        'class "{cls}" defines {name} with an operand of type {typ}: Python calls it with '
        "whatever the other operand is (a reflected operator, and max, sorted, heapq or sum "
        "through typeshed bounds typed Any), unchecked by mypy; annotate the operand as "
        "object and narrow it with isinstance (return NotImplemented otherwise)"
    ),
    "equality": (
        'class "{cls}" defines {name} by hand: library code (an Enum\'s value lookup, set '
        "algebra, dict lookups) compares through it, and an answer of True for another "
        "class's object hands that object on under this class's type; use @dataclass (its "
        "__eq__ compares instances of the same class)"
    ),
    "filled_parameter": (
        'method "{name}" annotates parameter "{parameter}" with a type holding a hook class '
        "or a type variable: {caller} calls it with values mypy never matched against that "
        "type; annotate it object (as the stub does, object for Any) and narrow it with "
        "isinstance"
    ),
    "dispatch_scope": (
        "singledispatch's register reads the annotation \"{name}\" in the module's globals "
        "(typing.get_type_hints), where it names another class than mypy resolved here: "
        "annotate with a module-level class of that name"
    ),
    "keys_method": (
        'class "{cls}" defines keys() without deriving from Mapping: dict(x), x | {{}} and '
        "update(x) take any object with keys() as a mapping (keys, then x[key]), whatever "
        "type mypy gave x; rename it, or derive from collections.abc.Mapping"
    ),
    "in_place_fallback": (
        "{op}= on a value whose declared type has no {name}: mypy types it as a new value "
        "(a = a {op} b), while the run calls the object's own {name} if it has one (a set's "
        "changes it in place, under every name that holds it); write a = a {op} b"
    ),
    "pairs_mapping": (
        "these pairs may be a mapping at run time (a dict is an Iterable of its keys): the "
        "run then takes its keys() and values, which mypy never typed as the pairs; build "
        "it with a comprehension ({k: v for k, v in pairs}), or give a list of pairs"
    ),
    "mangled": (
        'the name "{name}" is not allowed in hook code: it is the name Python gives a '
        '"__" attribute inside a class (__x in class C is _C__x), which mypy treats as '
        "another attribute; rename it"
    ),
    "descriptor": (
        'a "{name}" (a descriptor: it defines __get__, __set__ or __delete__) held under '
        "another declared type: mypy types reads by the declaration, the run asks the "
        "descriptor; hold it under its own class (name = {name}()), or use a property"
    ),
    "descriptor_on_instance": (
        'attribute "{name}" holds a descriptor of the hook module on an instance: mypy '
        "applies its __get__ to reads, the run (which finds it on the instance) does not; "
        "assign it in the class body, or use a property"
    ),
    "lookup_fallback": (
        "{where} defines {name}: mypy types an attribute by its declaration, and the run "
        "asks {name} when none is stored, which answers with anything: not allowed in a "
        "hook module (store the attributes, or keep a dict)"
    ),
    "set_name": (
        'class "{cls}": __set_name__ must accept any class as its owner (type[object]): '
        "Python calls it with the class the descriptor is placed in, which mypy never checks"
    ),
    "shadowed_member": (
        'class "{cls}" declares attribute "{name}" over a property, method or descriptor of '
        '"{base}": mypy reads it by the declaration, the run finds the base\'s member; '
        "rename the attribute"
    ),
    "class_body_read": (
        'reading "{name}" in a class body where the module or the builtins also bind it: '
        "when the class's own binding is missing at run time (declared only, deleted, bound "
        "on one branch) the run reads theirs, and mypy believes the class's; rename it"
    ),
    "enum_init": (
        'Enum "{cls}": the value of member "{name}" does not match {method}\'s parameters: '
        "Enum calls {method} with it unchecked by mypy; give each member a value of the "
        "parameters' types"
    ),
    "class_getitem": (
        'class "{cls}" defines __class_getitem__: mypy reads "{cls}[X]" as a type, while the '
        "run calls what __class_getitem__ returns; remove it (Generic[T] makes a class "
        "subscriptable)"
    ),
    "override": (
        'class "{cls}" redeclares attribute "{name}" of "{base}" with another type: through '
        "the base any value can be stored and read back as the narrower type; keep the "
        "base's type"
    ),
    "any_captured": (
        'capture "{name}" binds a name of type {target}, and the subject may hold an Any (or '
        "a class pattern reads an attribute that may be one): mypy lets the captured value "
        "become that type unchecked; capture into a fresh name and narrow it with isinstance"
    ),
    "any_converted": (
        "this expression may be an Any, and mypy lets it become {target} here unchecked "
        "(an isinstance against a generic class gives its items type Any): narrow it with "
        "isinstance against the class first"
    ),
    "module_value": (
        "{what} used as a value is not allowed in hook code: a module's "
        "attributes lead to every module of the process; name the member you use "
        "(module.name)"
    ),
    "typeddict_unpack": (
        "unpacking a TypedDict with ** is not allowed in hook code: a value of the type may "
        "be any TypedDict with more keys, and the keys it does not declare would be passed "
        'too; name the keys ("k": td["k"])'
    ),
    "invented_arguments": (
        'narrowing {member} to "{cls}" is not allowed in hook code: mypy invents the type '
        "arguments of the narrowed value, and a container typed otherwise elsewhere (a "
        "list[View] upcast to Sequence[object] or object) would be written through it; narrow "
        'a union that names "{cls}[...]" (json.loads\'s result is one), or check against a '
        "read-only type (collections.abc.Mapping, Sequence) and copy the items out"
    ),
    "match_args": (
        'class "{cls}" declares __match_args__ other than as a tuple of string literals: '
        "mypy then cannot tell which attribute a pattern's positional capture reads, and "
        'types it Any without an error; write __match_args__ = ("name", ...) without an '
        "annotation (a dataclass writes it for you)"
    ),
    "class_pattern_variable": (
        "a class pattern whose class is a variable is not allowed in hook code: the variable "
        "may hold any class at run time, and the pattern reads its attributes; name the class"
    ),
    "typeddict_merge": (
        'merging into a TypedDict in place ("|=") is not allowed in hook code: the other '
        "value may be any TypedDict with more keys, and every key it holds lands in this "
        "dict, which may itself be a wider TypedDict held under this type; build a new dict "
        'with the keys named ({"k": a["k"], ...})'
    ),
    "generic_default": (
        'the default of parameter "{name}" is one value shared by every call, and its type '
        "holds a type variable: each call would believe it holds its own type argument; "
        "default to None and build the value inside"
    ),
    "generic_class_value": (
        'class attribute "{name}" of generic class "{cls}" is one value shared by every '
        '"{cls}[...]", and its type holds a type variable: set it in __init__ (or use '
        "dataclasses.field(default_factory=...))"
    ),
    "self_class_value": (
        'class attribute "{name}" of "{cls}" is one value shared by "{cls}" and every '
        "subclass, and its type holds Self: each class would believe it holds its own "
        "instances; set it in __init__ (or use dataclasses.field(default_factory=...))"
    ),
    "generic_cache": (
        'a functools cache on generic function "{name}" hands one cached value to calls '
        "under every type argument mypy infers: cache a function without type variables"
    ),
    "shadow": (
        'module-level name "{name}" shadows a builtin, which is not allowed in a hook module: '
        "unbound (del, except ... as), it would be the builtin at run time; rename it"
    ),
}
