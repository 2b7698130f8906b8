"""A small JSON Schema validator for the keywords docs/report.schema.json uses (standard library only).

Supported: type (string or list), enum, const, pattern, minimum, maximum, properties, required,
additionalProperties (false or a schema), items, $ref to "#/$defs/NAME", anyOf. Any other keyword
makes validation fail loudly, so the schema cannot silently rely on something unchecked.
"""

import re

_IGNORED = {"$schema", "$id", "$defs", "title", "description"}
_HANDLED = {"type", "enum", "const", "pattern", "minimum", "maximum", "properties", "required",
            "additionalProperties", "items", "$ref", "anyOf"}


def _type_ok(value, name):
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    raise ValueError("unknown type %r" % name)


def validate(value, schema, root=None, path="$"):
    """Returns a list of error strings (empty when value is valid)."""
    root = schema if root is None else root
    errors = []
    unknown = set(schema) - _IGNORED - _HANDLED
    if unknown:
        return ["%s: schema uses unsupported keywords %s" % (path, sorted(unknown))]
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            return ["%s: unsupported $ref %s" % (path, ref)]
        errors += validate(value, root["$defs"][ref[len("#/$defs/"):]], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            return errors + ["%s: expected %s, got %r" % (path, "/".join(types), value)]
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %r" % (path, value, schema["enum"]))
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r != %r" % (path, value, schema["const"]))
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append("%s: %r does not match %r" % (path, value, schema["pattern"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append("%s: %r < minimum %r" % (path, value, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append("%s: %r > maximum %r" % (path, value, schema["maximum"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing required %r" % (path, key))
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = "%s.%s" % (path, key)
            if key in props:
                errors += validate(item, props[key], root, sub)
            elif extra is False:
                errors.append("%s: property not allowed by the schema" % sub)
            elif isinstance(extra, dict):
                errors += validate(item, extra, root, sub)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(item, schema["items"], root, "%s[%d]" % (path, i))
    if "anyOf" in schema:
        if not any(not validate(value, s, root, path) for s in schema["anyOf"]):
            errors.append("%s: matches none of anyOf" % path)
    return errors
