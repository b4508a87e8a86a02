#!/usr/bin/python3
"""Validates cluster descriptions (YAML, read as JSON data) against docs/formats/fabric.schema.json.

usage: validate_fabric_yaml.py SCHEMA FILE...
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
