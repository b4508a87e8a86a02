#!/usr/bin/python3
"""Validates data files against one of the JSON Schemas in docs/formats/: JSON documents, or YAML
(a cluster description) read as JSON data.

usage: validate_schema.py SCHEMA FILE...
"""
import json
import sys

import jsonschema
import yaml


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = yaml.safe_load(f)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            print(f"{path}: {where}: {error.message}")
        failures += len(errors)
        if not errors:
            print(f"{path}: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
