"""Tool input validation (silo-format §3.3): the Silo pass, then the whole schema decided by a library.

- :mod:`.silo_pass`: the reference's checks (required, unknown keys, type, enum) with its exact
  wordings and order;
- :mod:`.decision`: the JSON Schema draft 2020-12 decision, made by ``jsonschema-rs`` on the input
  with null members removed;
- :mod:`.messages`: text forms, paths, and the wording and order of the library's errors;
- :mod:`.compiled`: :class:`CompiledSchema`, the two passes composed, compiled once per schema.

``compile_schema(schema).problems(value)`` gives an input's ordered problems (empty: valid).
"""

from __future__ import annotations

from .compiled import CompiledSchema, compile_schema, validate_tool_input
from .messages import text_form_value, type_name

__all__ = ["CompiledSchema", "compile_schema", "text_form_value", "type_name", "validate_tool_input"]
