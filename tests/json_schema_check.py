"""tests/json_schema_check.py SCHEMA [FILE...]: every line of the files (or
of stdin) is one JSON document valid against SCHEMA (JSON Schema 2020-12).

Its own checker covers the keywords testdata/schema/output.schema.json uses
(type, const, enum, pattern, minimum, maximum, required, properties,
additionalProperties, items, allOf, oneOf, not, if/then/else, local $ref);
a keyword it does not know is an error, so the schema cannot outgrow it
quietly.  Where python's jsonschema is installed, it checks too (the schema
is then also checked as a 2020-12 schema)."""

import json
import re
import sys

KNOWN = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "pattern",
         "minimum", "maximum", "required", "properties", "additionalProperties", "items", "allOf",
         "oneOf", "not", "if", "then", "else", "$ref"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(value, name):
  if name == "integer":
    return isinstance(value, int) and not isinstance(value, bool)
  if name == "number":
    return isinstance(value, (int, float)) and not isinstance(value, bool)
  return isinstance(value, TYPES[name])


def check(root, schema, value, where, errors):
  if schema is True:
    return
  if schema is False:
    errors.append(f"{where}: not allowed")
    return
  unknown = set(schema) - KNOWN
  if unknown:
    raise SystemExit(f"json_schema_check: keywords it does not know: {sorted(unknown)}")
  if "$ref" in schema:
    target = root
    for part in schema["$ref"].lstrip("#/").split("/"):
      target = target[part]
    check(root, target, value, where, errors)
  if "type" in schema:
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not any(is_type(value, t) for t in types):
      errors.append(f"{where}: {json.dumps(value)[:80]} is not of type {types}")
      return
  if "const" in schema and value != schema["const"]:
    errors.append(f"{where}: {value!r} is not {schema['const']!r}")
  if "enum" in schema and value not in schema["enum"]:
    errors.append(f"{where}: {value!r} is not one of {schema['enum']}")
  if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
    errors.append(f"{where}: {value!r} does not match {schema['pattern']}")
  if "minimum" in schema and is_type(value, "number") and value < schema["minimum"]:
    errors.append(f"{where}: {value} < {schema['minimum']}")
  if "maximum" in schema and is_type(value, "number") and value > schema["maximum"]:
    errors.append(f"{where}: {value} > {schema['maximum']}")
  if isinstance(value, dict):
    for key in schema.get("required", []):
      if key not in value:
        errors.append(f"{where}: {key!r} is required")
    props = schema.get("properties", {})
    for key, v in value.items():
      if key in props:
        check(root, props[key], v, f"{where}.{key}", errors)
      elif "additionalProperties" in schema:
        check(root, schema["additionalProperties"], v, f"{where}.{key}", errors)
  if isinstance(value, list) and "items" in schema:
    for i, v in enumerate(value):
      check(root, schema["items"], v, f"{where}[{i}]", errors)
  for sub in schema.get("allOf", []):
    check(root, sub, value, where, errors)
  if "oneOf" in schema:
    passing = [i for i, sub in enumerate(schema["oneOf"]) if not collect(root, sub, value, where)]
    if len(passing) != 1:
      detail = "" if passing else "; " + "; ".join(
          min((collect(root, sub, value, where) for sub in schema["oneOf"]), key=len)[:3])
      errors.append(f"{where}: {len(passing)} of oneOf's schemas match, not 1{detail}")
  if "not" in schema and not collect(root, schema["not"], value, where):
    errors.append(f"{where}: matches what it must not ({json.dumps(schema['not'])})")
  if "if" in schema:
    branch = "then" if not collect(root, schema["if"], value, where) else "else"
    if branch in schema:
      check(root, schema[branch], value, where, errors)


def collect(root, schema, value, where):
  errors = []
  check(root, schema, value, where, errors)
  return errors


def main(argv):
  schema = json.load(open(argv[1]))
  try:
    import jsonschema
    jsonschema.Draft202012Validator.check_schema(schema)
    other = jsonschema.Draft202012Validator(schema)
  except ImportError:
    other = None
  texts = [open(p).read() for p in argv[2:]] if len(argv) > 2 else [sys.stdin.read()]
  bad = 0
  count = 0
  for text in texts:
    for line in text.splitlines():
      if not line.strip():
        continue
      count += 1
      doc = json.loads(line)
      errors = collect(schema, schema, doc, "$")
      if other is not None:
        errors += [f"jsonschema: {e.message[:200]}" for e in other.iter_errors(doc)]
      if errors:
        bad += 1
        print(f"invalid {doc.get('command')} output: " + "; ".join(errors[:5]))
  print(f"json_schema_check: {count} documents, {bad} invalid"
        f"{'' if other else ' (without python jsonschema)'}")
  return 1 if bad or not count else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
