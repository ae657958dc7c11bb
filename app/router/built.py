"""Result models built from values the router computed itself, without re-validating them.

Validation is for what comes from outside: tool arguments (``engine.Router.call``) and the policy
file. A result is assembled by the router's own code from values it has just decided; validating
it again cost a fifth of ``route_request`` (bench/router_bench.py: the slots alone, with a dozen
quantities, took 5 µs of pydantic-core on the 100-character message). ``builder(Model)`` returns a
function that makes a model instance from a complete dict of its fields, in declaration order, the
way pydantic's own ``model_construct`` does, minus its per-field Python loop.

Nothing is lost by trusting the router here, because the test suite does not: with ``CHECK`` on
(tests/conftest.py turns it on for every test), each built instance is also validated, and must
equal its validated twin and serialize to the same JSON. A value of the wrong type, a reason code
outside its Literal, a missing or extra field, a field out of order: each fails the test that
produced it.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

# Tests set this to True: every build is then checked against validation (see ``_check``).
CHECK = False

_new = object.__new__
# BaseModel's four slots, set through their own descriptors: ``object.__setattr__`` looks each one
# up on the type first (a route_request builds two or three results, four slots each).
_slots = BaseModel.__dict__
_set_dict = _slots["__dict__"].__set__
_set_fields_set = _slots["__pydantic_fields_set__"].__set__
_set_extra = _slots["__pydantic_extra__"].__set__
_set_private = _slots["__pydantic_private__"].__set__


def builder(model: type[M]) -> Callable[[dict[str, Any]], M]:
    fields = tuple(model.model_fields)
    fields_set = set(fields)  # every field is given, so every instance shares one full set

    def build(values: dict[str, Any]) -> M:
        instance = _new(model)
        _set_dict(instance, values)
        _set_fields_set(instance, fields_set)
        _set_extra(instance, None)
        _set_private(instance, None)
        if CHECK:
            _check(model, fields, instance)
        return instance

    return build


class BuildError(AssertionError):
    """A built result that validation would not have produced (only raised with ``CHECK`` on)."""


def _check(model: type[BaseModel], fields: tuple[str, ...], instance: BaseModel) -> None:
    given = tuple(instance.__dict__)
    if given != fields:
        raise BuildError(f"{model.__name__}: fields {given} are not {fields}")
    twin = model.model_validate(instance.model_dump())
    # repr tells 12 from 12.0 (equal, and the same JSON for a float field) and a dict from a model.
    if repr(twin) != repr(instance) or twin.model_dump_json() != instance.model_dump_json():
        raise BuildError(f"{model.__name__}: the built instance differs from its validated twin")
